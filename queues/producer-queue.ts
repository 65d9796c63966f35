/**
 * The producer side of a BullMQ queue: the `Queue` that adds jobs, reads counts and manages job
 * schedulers. Every factory in `queues/` opens its `Queue` here, so they all share one setup.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_STREAMS } from './queue-streams.ts';

/** Options of {@link openProducerQueue}. */
export interface ProducerQueueOptions {
  /**
   * The queue's Redis client, normally a producer client from `openRedis(input, 'producer')`
   * (fail-fast: no offline queue, `maxRetriesPerRequest: 0`), so that an `add` while Redis is away
   * rejects at once. BullMQ uses it as is and does not close it: the caller closes it after the queue.
   */
  readonly connection: Redis;
  /** Key prefix of the queue's keys (`<prefix>:<name>:…`), already checked with `checkPrefix`. */
  readonly prefix: string;
}

/**
 * Opens a producer `Queue` named `name` on `options.connection` with `options.prefix`, and sets:
 * - `streams`: {@link QUEUE_STREAMS}, which caps the queue's event stream at 500 events (BullMQ's
 *   default is 10 000); every `Queue` writes its value into the queue's meta hash, so all of them
 *   must pass the same one.
 * - a listener that takes the queue's `error` events and does nothing with them. BullMQ re-emits
 *   its connection's errors on the queue, and prints them on stderr when the queue has no
 *   listener: one stack trace per reconnect attempt for every queue while Redis is away. A
 *   producer's failures already reach its callers (an `add` rejects, so a message is answered 503)
 *   and the service logs the lost connection once, so these events are dropped.
 *
 * The caller closes the queue (`queue.close()`), then the connection if it owns it.
 *
 * @typeParam DataType - The data of the queue's jobs. Default `unknown` (a queue only read from).
 *
 * @example
 * const producer = openRedis(options.connection, 'producer');
 * const queue = openProducerQueue<TurnJobData>(TURN_QUEUE_NAME, { connection: producer.client, prefix });
 */
export function openProducerQueue<DataType = unknown>(name: string, options: ProducerQueueOptions): Queue<DataType> {
  const queue = new Queue<DataType>(name, { connection: options.connection, prefix: options.prefix, streams: QUEUE_STREAMS });
  queue.on('error', () => undefined);
  return queue;
}
