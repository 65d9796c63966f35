/** Times written as ISO 8601 with the offset of a time zone: `2026-05-01T13:00:00+01:00`. */
import { SwitchboardError } from '../errors.ts';

/**
 * `timeZone` when it is an IANA time zone (or `UTC`).
 *
 * @throws SwitchboardError `config.invalid` for a name the platform does not know.
 */
export function checkTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch (error) {
    throw new SwitchboardError('config.invalid', `"${timeZone}" is not an IANA time zone.`, { details: { timeZone }, cause: error });
  }
}

/**
 * The instant `iso` as ISO 8601 in `timeZone`, to the second, with that zone's offset at the time
 * (`+00:00` for UTC, never `Z`). `iso` itself when it is not a date-time.
 *
 * @example isoWithOffset('2026-05-01T12:00:00.000Z', 'Europe/Paris') // '2026-05-01T14:00:00+02:00'
 */
export function isoWithOffset(iso: string, timeZone: string): string {
  const instant = new Date(iso);
  if (!Number.isFinite(instant.getTime())) return iso;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((item) => item.type === type)?.value ?? '';
  const zone = part('timeZoneName').replace(/^GMT/, '');
  const offset = zone === '' ? '+00:00' : zone;
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset}`;
}
