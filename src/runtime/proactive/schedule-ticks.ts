/** What a schedule's tick does in the service: resolve the recipient, enqueue the injection. */
import { SwitchboardError } from '../../protocol/errors.ts';
import type { Person, ScheduleConfig } from '../app/app-types.ts';
import type { Injection } from '../injection.ts';
import { resolveRecipient } from './resolve-recipient.ts';
import { scheduledInjection } from './scheduled-injection.ts';

/** Options of {@link createScheduleTicks}. */
export interface ScheduleTicksOptions {
  /** The app's people. */
  readonly people: readonly Person[];
  /** The channels this service runs. */
  readonly enabledChannels: readonly string[];
  /** Order a person's channels are tried in. Default `DEFAULT_CHANNEL_PREFERENCE` (`resolve-recipient.ts`). */
  readonly preference?: readonly string[];
  /** The tenant of the injections. */
  readonly tenantId: string;
  /**
   * Durably enqueues the injection, dropping a duplicate id (the inbound queue's `enqueue`): a
   * tick that runs twice then still makes one turn.
   */
  readonly enqueue: (injection: Injection) => Promise<unknown>;
}

/**
 * The `onTick` of the scheduler for the service: resolves the schedule's recipient and enqueues
 * its {@link scheduledInjection} (on behalf of the recipient when it is a person).
 *
 * @returns A tick handler; it rejects with `SwitchboardError('schedule.invalid')` when the
 *   recipient cannot be reached (unknown person, no address on an enabled channel, a disabled
 *   channel), which the scheduler does not retry, and with the enqueue's error otherwise.
 *
 * @example
 * const scheduler = createScheduler({ connection, schedules: app.schedules ?? [], onTick: createScheduleTicks({ ... }) });
 */
export function createScheduleTicks(options: ScheduleTicksOptions): (schedule: ScheduleConfig, firedAt: Date) => Promise<void> {
  return async (schedule, firedAt) => {
    const resolved = resolveRecipient(schedule.to, options);
    if (!resolved.ok) {
      throw new SwitchboardError('schedule.invalid', `Schedule "${schedule.id}" cannot fire: ${resolved.message}`, {
        details: { scheduleId: schedule.id, failure: resolved.failure },
      });
    }
    await options.enqueue(scheduledInjection(schedule, firedAt, resolved.destination, options.tenantId, resolved.person));
  };
}
