/**
 * The injection a schedule's tick becomes: a message to the schedule's actor, as if the
 * recipient's conversation had received the schedule's prompt, whose answer goes to the recipient.
 */
import type { Person, ScheduleConfig } from '../app/app-types.ts';
import type { Destination, Injection } from '../injection.ts';

/** `data.origin` of an injection made by {@link scheduledInjection}. */
export const SCHEDULE_ORIGIN = 'schedule';

/** What a scheduled injection carries in `data`. */
export type ScheduledInjectionData = {
  readonly origin: typeof SCHEDULE_ORIGIN;
  readonly scheduleId: string;
  /** The actor that must run the turn, whatever the channel's route says. */
  readonly actor: string;
};

/**
 * The injection of the tick of `schedule` due at `firedAt`, answered at `destination`:
 * id `schedule:<id>:<firedAt ms>` (the same for every run of one tick, so the inbound queue keeps
 * one), kind `message`, the destination's channel and address as conversation key (for web, the
 * conversation id), sender `schedule:<id>` (verified), the prompt as text (content `schedule`,
 * trusted: the operator wrote it),
 * `data` {@link ScheduledInjectionData}, and `receivedAt` the tick's time.
 *
 * When the recipient is a person, the sender carries their `personId`: the turn runs on their
 * behalf, so its tools see `ctx.personId` (their bookings, `notify` to "me") as when they write.
 *
 * @param person - The recipient, when the schedule's `to` named a person. Default none.
 *
 * @example
 * const injection = scheduledInjection(schedule, firedAt, { channel: 'sms', address: '+15550100' }, 'default', grace);
 * await inbound.enqueue(injection);
 */
export function scheduledInjection(
  schedule: Pick<ScheduleConfig, 'id' | 'actor' | 'prompt'>,
  firedAt: Date,
  destination: Destination,
  tenantId: string,
  person?: Pick<Person, 'id'>,
): Injection {
  const data: ScheduledInjectionData = { origin: SCHEDULE_ORIGIN, scheduleId: schedule.id, actor: schedule.actor };
  return {
    id: `schedule:${schedule.id}:${firedAt.getTime()}`,
    kind: 'message',
    channel: destination.channel,
    tenantId,
    conversationKey: destination.address,
    sender: {
      id: `schedule:${schedule.id}`,
      verified: true,
      displayName: `schedule ${schedule.id}`,
      ...(person === undefined ? {} : { personId: person.id }),
    },
    text: schedule.prompt,
    // The prompt is the operator's own, from switchboard.yaml.
    content: { source: 'schedule', trusted: true },
    data,
    replyTo: destination,
    receivedAt: firedAt.toISOString(),
  };
}

/**
 * The actor a scheduled injection asks for (`data.actor` when `data.origin` is `schedule`), or
 * `undefined` for any other injection, which goes to its channel's route.
 */
export function scheduledActorOf(injection: Pick<Injection, 'data'>): string | undefined {
  const data = injection.data;
  if (data?.['origin'] !== SCHEDULE_ORIGIN) return undefined;
  const actor = data['actor'];
  return typeof actor === 'string' && actor !== '' ? actor : undefined;
}
