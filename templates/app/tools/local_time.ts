/**
 * local_time: the current date and time in a time zone. The default export is the tool the service
 * registers (one tool per file in tools/); `localTime` is exported for the tests.
 */
import { defineTool } from 'switchboard';

/** What the model passes. */
export interface LocalTimeArgs {
  /** An IANA time zone name, e.g. `Europe/Paris`. */
  readonly timezone: string;
}

/** What the tool answers. */
export interface LocalTime {
  readonly timezone: string;
  /** Local date and time, `YYYY-MM-DD HH:mm`. */
  readonly localTime: string;
  /** The local day of the week, in English. */
  readonly weekday: string;
  /** Offset from UTC, e.g. `GMT+9`. */
  readonly utcOffset: string;
}

/**
 * The time `at` in `timezone`.
 *
 * @throws Error naming the time zone when it is not one (the model is told, and can ask again).
 */
export function localTime(timezone: string, at: Date): LocalTime {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
      weekday: 'long', timeZoneName: 'shortOffset',
    });
  } catch {
    throw new Error(`"${timezone}" is not a time zone; use an IANA name such as Europe/Paris or America/New_York.`);
  }
  const parts = format.formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((found) => found.type === type)?.value ?? '';
  return {
    timezone,
    localTime: `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`,
    weekday: part('weekday'),
    utcOffset: part('timeZoneName'),
  };
}

export default defineTool<LocalTimeArgs, LocalTime>({
  name: 'local_time',
  description: 'The current local date, time and weekday in an IANA time zone such as Europe/Paris or Asia/Tokyo.',
  // generalist: any actor that lists it may call it, and it runs in the actor's own turn.
  scope: 'generalist',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['timezone'],
    properties: { timezone: { type: 'string', minLength: 1, description: 'IANA time zone name, e.g. Europe/Paris' } },
  },
  handler: ({ timezone }) => localTime(timezone, new Date()),
});
