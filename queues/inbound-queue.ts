/**
 * The inbound queue: injections handled apart from any session's mailbox (the service sends
 * decisions here: button presses and `APPROVE <code>` replies; messages go straight to their
 * mailbox). The job id derives from the injection id (which derives from the channel's own message
 * id), so a redelivery or a retry of the same message is dropped at enqueue, for as long as the
 * first job is kept (the dedupe window). Jobs run in parallel: nothing here keeps an order.
 */
import { Worker, type Job } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import type { Injection } from '../src/runtime/injection.ts';
import { addOnce, type AddOnceResult, type OnceEnvelope } from './add-once.ts';
import { inboundJobId } from './job-ids.ts';
import { closeWorker } from './close-worker.ts';
import { checkPrefix, openRedis, type RedisConnectionInput } from './redis-connections.ts';
import { openProducerQueue } from './producer-queue.ts';

/** Name of the inbound BullMQ queue (its keys are `<prefix>:inbound:…`). */
export const INBOUND_QUEUE_NAME = 'inbound';

const JOB_NAME = 'injection';
const DAY_MS = 24 * 60 * 60 * 1000;

type InboundJobData = OnceEnvelope<Injection>;

/** Options of {@link createInboundQueue}. */
export interface InboundQueueOptions {
  /**
   * Redis for the producer. A client passed in is used as is and not closed; options open a client
   * with `enableOfflineQueue: false` (fail fast, so the webhook answers with an error and the
   * channel redelivers), closed by `close()`.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queue. Default `sb`. */
  readonly prefix?: string;
  /**
   * How long a processed injection is kept so that a redelivery of the same id is still dropped,
   * in milliseconds. Default 604800000 (7 days). Removal is lazy (when later jobs complete), so a
   * job may stay longer, never shorter, unless {@link InboundQueueOptions.dedupeMaxJobs} cuts in.
   */
  readonly dedupeWindowMs?: number;
  /**
   * At most this many processed injections are kept; past it, the oldest are removed even inside
   * the dedupe window. Default 100000.
   */
  readonly dedupeMaxJobs?: number;
  /** Tries per injection, the first included. Default 5. */
  readonly attempts?: number;
  /** Delay before the first retry, in milliseconds; doubles on each further retry. Default 1000. */
  readonly backoffDelayMs?: number;
}

/** The producer side of the inbound queue. */
export interface InboundQueue {
  /**
   * Durably enqueues `injection`; answer the channel only after this resolves. Resolves
   * `{ duplicate: true }` when a job for the same `injection.id` is already queued, running, failed,
   * or completed within the dedupe window: nothing was added. Rejects when Redis is unreachable,
   * and with a `queue.closed` {@link SwitchboardError} after `close()`.
   */
  enqueue(injection: Injection): Promise<AddOnceResult>;
  /** Closes the queue, and the Redis client if it was opened from options. */
  close(): Promise<void>;
}

/**
 * Creates the producer side of the inbound queue.
 *
 * @example
 * const inbound = createInboundQueue({ connection: { host: 'localhost', port: 6379 } });
 * const { duplicate } = await inbound.enqueue(injection); // then answer 200
 */
export function createInboundQueue(options: InboundQueueOptions): InboundQueue {
  const prefix = checkPrefix(options.prefix);
  const redis = openRedis(options.connection, 'producer');
  const queue = openProducerQueue<InboundJobData>(INBOUND_QUEUE_NAME, { connection: redis.client, prefix });
  const jobOptions = {
    attempts: options.attempts ?? 5,
    backoff: { type: 'exponential', delay: options.backoffDelayMs ?? 1000 },
    removeOnComplete: {
      age: Math.ceil((options.dedupeWindowMs ?? 7 * DAY_MS) / 1000),
      count: options.dedupeMaxJobs ?? 100_000,
    },
    removeOnFail: false,
  } as const;
  let closing: Promise<void> | undefined;
  // Earlier versions ran this queue one job at a time across the cluster; a queue created by them
  // keeps that limit in Redis until it is removed.
  let unlimited: Promise<unknown> | undefined;

  return {
    async enqueue(injection) {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The inbound queue is closed');
      unlimited ??= queue.removeGlobalConcurrency();
      await unlimited;
      return addOnce(queue, JOB_NAME, injection, { ...jobOptions, jobId: inboundJobId(injection.id) });
    },
    close() {
      closing ??= (async () => {
        try {
          await queue.close();
        } finally {
          await redis.close();
        }
      })();
      return closing;
    },
  };
}

/** Options of {@link createInboundWorker}. */
export interface InboundWorkerOptions {
  /**
   * Redis for the worker. A client passed in must have `maxRetriesPerRequest: null` and is not
   * closed; options open such a client, closed by `close()`. BullMQ opens its own blocking
   * duplicate either way.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queue. Default `sb`. */
  readonly prefix?: string;
  /** Injections processed at the same time by this worker. Default 8. */
  readonly concurrency?: number;
  /**
   * Handles one injection, typically: append it to its session's mailbox and schedule a turn.
   * A rejection retries the injection with exponential backoff until its attempts run out; then the
   * job stays in the failed set. It may run more than once for one injection (a retry after a
   * crash), so it must be idempotent.
   */
  readonly process: (injection: Injection) => Promise<void>;
  /** Receives errors of the worker and its connections. Default: ignored. */
  readonly onError?: (error: Error) => void;
}

/** A running inbound worker. */
export interface InboundWorker {
  /** Stops taking jobs, waits for the running ones, closes the worker and any client it opened. */
  close(): Promise<void>;
}

/** Starts a worker on the inbound queue. */
export function createInboundWorker(options: InboundWorkerOptions): InboundWorker {
  const prefix = checkPrefix(options.prefix);
  const redis = openRedis(options.connection, 'worker');
  const worker = new Worker<InboundJobData>(
    INBOUND_QUEUE_NAME,
    async (job: Job<InboundJobData>) => {
      await options.process(job.data.item);
    },
    { connection: redis.client, prefix, concurrency: options.concurrency ?? 8 },
  );
  const onError = options.onError ?? (() => undefined);
  worker.on('error', onError);
  let closing: Promise<void> | undefined;

  return {
    close() {
      closing ??= (async () => {
        try {
          await closeWorker(worker, redis.client);
        } finally {
          await redis.close();
        }
      })();
      return closing;
    },
  };
}
