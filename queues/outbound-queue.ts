/**
 * The outbound queues: one BullMQ queue per channel, `outbound-<channel>`, so each channel has its
 * own rate limit and a slow provider holds up only its own channel.
 *
 * Guarantees:
 * - Enqueue is idempotent: the job id is `out-` + sha256(idempotency key).
 * - At most one send per idempotency key, across retries and crashes: the delivery ledger (see
 *   `delivery-ledger.ts`) records the intent before `send` and the receipt after. A retried job
 *   that finds a receipt completes without sending; one that finds an intent without an outcome
 *   fails for good (unless the sender is provider-idempotent) rather than risk a second message.
 * - Rate limits: `ChannelSender.rateLimit` for the whole channel (BullMQ's limiter) and
 *   `ChannelSender.destinationRateLimit` per destination (see `destination-rate-limit.ts`), both
 *   across every worker. A delivery held back by its destination's limit waits in the delayed set
 *   without using an attempt, and does not hold up deliveries to other destinations.
 * - Retries: a failed send is retried with exponential backoff, never sooner than a
 *   `retryAfterMs` the sender reported; a 429 with `retryAfterMs` also pauses a rate-limited
 *   channel. A permanent failure (`DeliveryError` with `permanent`) is final at once.
 * - Every final failure (permanent, attempts used up, unknown earlier outcome, stalled too often)
 *   is recorded with its reason in the failure log (`delivery-failures.ts`) and the job is kept
 *   in BullMQ's failed set.
 * - `onAttempt` hears of each attempt (`sent`, `retry`, `failed`) and each deferral, at least once:
 *   a worker that dies after reporting may report the same attempt again. Its errors never fail a
 *   delivery.
 * - Order: with `concurrency` 1 a channel's deliveries are sent in queue order, except that a
 *   retried delivery goes back in line, and a delivery held back for its destination waits while
 *   deliveries to other destinations pass; held-back deliveries to one destination keep their order.
 */
import { Worker, type Queue } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { addOnce } from './add-once.ts';
import { createDeliveryFailures, type DeliveryFailures } from './delivery-failures.ts';
import { createDeliveryLedger, type DeliveryLedger } from './delivery-ledger.ts';
import { createDestinationRateLimit, type DestinationRateLimit } from './destination-rate-limit.ts';
import { outboundJobId } from './job-ids.ts';
import { createDeliveryProcessor, type OutboundJobData } from './outbound-processor.ts';
import type { Outbound, OutboundOptions } from './outbound-options.ts';
import type { ChannelSender, SendReceipt } from './outbound-types.ts';
import { closeWorker } from './close-worker.ts';
import { checkPrefix, openRedis, type OpenedRedis } from './redis-connections.ts';
import { createRetryDelays } from './retry-delay.ts';
import { openProducerQueue } from './producer-queue.ts';

export type { Outbound, OutboundOptions } from './outbound-options.ts';

const JOB_NAME = 'delivery';
/** Name of the custom BullMQ backoff type used by outbound jobs. */
const BACKOFF_TYPE = 'delivery';
const DAY_MS = 24 * 60 * 60 * 1000;
const CHANNEL_ID = /^[a-z0-9][a-z0-9_-]*$/i;

/** The BullMQ queue name of a channel's outbound queue: `outbound-<channel>`. */
export function outboundQueueName(channel: string): string {
  return `outbound-${channel}`;
}

/** What every channel's worker shares. */
interface Shared {
  readonly client: OpenedRedis;
  readonly ledger: DeliveryLedger;
  readonly failures: DeliveryFailures;
  readonly rateLimit: DestinationRateLimit;
}

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

function checkChannels(senders: Readonly<Record<string, ChannelSender>>): void {
  for (const channel of Object.keys(senders)) {
    if (!CHANNEL_ID.test(channel)) {
      throw new SwitchboardError('config.invalid', `Invalid channel id "${channel}" for an outbound queue`, {
        details: { channel },
      });
    }
  }
}

/**
 * Creates the outbound queues of the channels in `options.senders`.
 *
 * @example
 * const outbound = createOutbound({
 *   connection: { host: 'localhost', port: 6379 },
 *   senders: { sms: { send: sendSms, rateLimit: { max: 1, durationMs: 1000 } } },
 * });
 * outbound.startWorkers();
 * await outbound.enqueue({ channel: 'sms', destination, idempotencyKey, payload: { text: 'Hi' } });
 */
export function createOutbound(options: OutboundOptions): Outbound {
  const prefix = checkPrefix(options.prefix);
  const { senders } = options;
  checkChannels(senders);
  const backoffDelayMs = options.backoffDelayMs ?? 1000;
  const maxBackoffDelayMs = options.maxBackoffDelayMs ?? 600_000;
  const onError = options.onError ?? (() => undefined);
  const producer = openRedis(options.connection, 'producer');
  const queues = new Map<string, Queue<OutboundJobData>>();
  const workers: Worker<OutboundJobData, SendReceipt>[] = [];
  let consumer: OpenedRedis | undefined;
  let closing: Promise<void> | undefined;

  const jobOptions = {
    attempts: options.attempts ?? 8,
    backoff: { type: BACKOFF_TYPE, delay: backoffDelayMs },
    removeOnComplete: {
      age: Math.ceil((options.dedupeWindowMs ?? 7 * DAY_MS) / 1000),
      count: options.dedupeMaxJobs ?? 100_000,
    },
    removeOnFail: false,
  } as const;

  const queueOf = (channel: string): Queue<OutboundJobData> => {
    let queue = queues.get(channel);
    if (queue === undefined) {
      queue = openProducerQueue<OutboundJobData>(outboundQueueName(channel), { connection: producer.client, prefix });
      queues.set(channel, queue);
    }
    return queue;
  };

  const retryDelays = createRetryDelays({ backoffDelayMs, maxBackoffDelayMs });

  const startWorker = (channel: string, sender: ChannelSender, shared: Shared): void => {
    const processor = createDeliveryProcessor({
      sender,
      ledger: shared.ledger,
      failures: shared.failures,
      rateLimit: shared.rateLimit,
      retryDelays,
      onAttempt: options.onAttempt,
      onError,
      // Hold off the whole channel, not just this job (BullMQ applies it only with a limiter).
      // If that fails, the job's own backoff still honours retryAfterMs.
      onThrottled: async (retryAfterMs) => {
        if (sender.rateLimit !== undefined) await queueOf(channel).rateLimit(retryAfterMs);
      },
    });
    const worker = new Worker<OutboundJobData, SendReceipt>(outboundQueueName(channel), processor.process, {
      connection: shared.client.client,
      prefix,
      concurrency: sender.concurrency ?? 1,
      lockDuration: options.jobLockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      settings: { backoffStrategy: retryDelays.strategy },
      ...(sender.rateLimit === undefined
        ? {}
        : { limiter: { max: sender.rateLimit.max, duration: sender.rateLimit.durationMs } }),
    });
    worker.on('error', onError);
    worker.on('failed', (job, error) => {
      if (job !== undefined) processor.failedOutside(job, error).catch((thrown: unknown) => {
        onError(toError(thrown));
      });
    });
    workers.push(worker);
  };

  return {
    async enqueue(delivery) {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The outbound queues are closed');
      if (!Object.hasOwn(senders, delivery.channel)) {
        throw new SwitchboardError('config.invalid', `No outbound sender for channel "${delivery.channel}"`, {
          details: { channel: delivery.channel },
        });
      }
      return addOnce(queueOf(delivery.channel), JOB_NAME, delivery, {
        ...jobOptions,
        jobId: outboundJobId(delivery.idempotencyKey),
      });
    },
    startWorkers() {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The outbound queues are closed');
      if (consumer !== undefined) return;
      consumer = producer.owned ? openRedis(options.connection, 'worker') : producer;
      const redis = consumer.client;
      const shared: Shared = {
        client: consumer,
        ledger: createDeliveryLedger({ redis, prefix, ...(options.ledgerTtlMs === undefined ? {} : { ttlMs: options.ledgerTtlMs }) }),
        failures: createDeliveryFailures({
          redis,
          prefix,
          ...(options.failuresMaxEntries === undefined ? {} : { maxEntries: options.failuresMaxEntries }),
          ...(options.failuresTtlMs === undefined ? {} : { ttlMs: options.failuresTtlMs }),
        }),
        rateLimit: createDestinationRateLimit({ redis, prefix }),
      };
      for (const [channel, sender] of Object.entries(senders)) startWorker(channel, sender, shared);
    },
    close() {
      closing ??= (async () => {
        const results = await Promise.allSettled(workers.map((worker) => closeWorker(worker, consumer?.client)));
        results.push(...(await Promise.allSettled([...queues.values()].map((queue) => queue.close()))));
        results.push(...(await Promise.allSettled([consumer?.close(), producer.close()])));
        const failed = results.find((result) => result.status === 'rejected');
        if (failed !== undefined) throw toError(failed.reason);
      })();
      return closing;
    },
  };
}
