/**
 * The session event-log entry of one delivery attempt, for the service's `onAttempt`: what was
 * sent where, how it went, and when it runs again. The payload is left out (it may be large and
 * is in the turn record already).
 */
import type { EventLogEntry } from '../src/runtime/session/event-log.ts';
import type { DeliveryAttemptEvent } from './outbound-types.ts';

/**
 * The `delivery` entry of `event` for the event log of `event.delivery.trace.sessionId`; the
 * entry's `turnId` is the trace's. Every value is JSON; `nextAttemptAt` is an ISO 8601 time.
 *
 * @example
 * onAttempt: async (event) => {
 *   const trace = event.delivery.trace;
 *   if (trace !== undefined) await eventLog.append(trace.sessionId, deliveryLogEntry(event));
 * },
 */
export function deliveryLogEntry(event: DeliveryAttemptEvent): EventLogEntry {
  const { delivery, receipt, error, nextAttemptAt } = event;
  const turnId = delivery.trace?.turnId;
  return {
    type: 'delivery',
    ...(turnId === undefined ? {} : { turnId }),
    data: {
      outcome: event.outcome,
      attempt: event.attempt,
      channel: delivery.channel,
      address: delivery.destination.address,
      idempotencyKey: delivery.idempotencyKey,
      ...(receipt?.providerMessageId === undefined ? {} : { providerMessageId: receipt.providerMessageId }),
      ...(error === undefined ? {} : { error }),
      ...(nextAttemptAt === undefined ? {} : { nextAttemptAt: new Date(nextAttemptAt).toISOString() }),
    },
  };
}
