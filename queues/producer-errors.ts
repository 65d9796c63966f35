/**
 * The `error` events of a producer `Queue`. BullMQ re-emits its connection's errors on the queue,
 * and prints them on stderr when the queue has no listener: one stack trace per reconnect attempt
 * for every queue while Redis is away. A producer's failures already reach its callers (an `add`
 * rejects, so a message is answered 503) and the service logs the lost connection once, so these
 * events are ignored.
 */
import type { Queue } from 'bullmq';

/** Takes `queue`'s `error` events (see the file comment); returns the queue. */
export function ignoreConnectionErrors<T extends Queue>(queue: T): T {
  queue.on('error', () => undefined);
  return queue;
}
