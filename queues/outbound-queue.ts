/**
 * The outbound queues: one BullMQ queue per channel, `outbound-<channel>`, so each channel has its
 * own limits and a slow provider holds up only its own channel.
 *
 * Guarantees:
 * - Enqueue is idempotent: the job id is `out-` + sha256(idempotency key).
 * - At most one send per idempotency key, across retries and crashes: the delivery ledger (see
 *   `delivery-ledger.ts`) records the intent before `send` and the receipt after. A retried job
 *   that finds a receipt completes without sending; one that finds an intent without an outcome
 *   asks the provider through the sender's `findSent` and sends only when the message is not
 *   there; when the provider cannot tell, the sender's `unconfirmed` rule decides (see
 *   `unconfirmed-send.ts`). Since a rerun is safe, a job may stall (its worker died) up to
 *   {@link MAX_STALLS} times before it fails as `stalled`.
 * - Rate limits: `ChannelSender.destinationRateLimit` per destination (see
 *   `destination-rate-limit.ts`), `rateLimit` for the whole channel and `methodRateLimits` per
 *   provider method (see `send-windows.ts`), all across every worker and shared with inline sends.
 *   A delivery held back by a limit waits in the delayed set without using an attempt, and does
 *   not hold up deliveries to other destinations.
 * - Retries: a failed send is retried with exponential backoff, never sooner than a
 *   `retryAfterMs` the sender reported; a 429 with `retryAfterMs` also pauses the channel (every
 *   send of a channel with any limit waits it out). A permanent failure (`DeliveryError` with
 *   `permanent`) is final at once.
 * - Every final failure (permanent, attempts used up, unknown earlier outcome, stalled too often)
 *   is recorded with its reason in the failure log (`delivery-failures.ts`) and the job is kept
 *   in BullMQ's failed set.
 * - `onAttempt` hears of each attempt (`sent`, `retry`, `failed`) and each deferral, at least once:
 *   a worker that dies after reporting may report the same attempt again. Its errors never fail a
 *   delivery.
 * - Order: a worker sends up to `concurrency` deliveries at once (default 8), one destination at a
 *   time: deliveries to one destination go in queue order, except that a retried delivery goes
 *   back in line; a delivery held back for its destination waits while deliveries to other
 *   destinations pass; held-back deliveries to one destination keep their order.
 * - `deliver` sends at once when it can (see `inline-send.ts`): two script calls and no job for a
 *   send within its limits, the queue for everything else. A delivery held back by its
 *   destination's limit joins the destination's line, so later deliveries to it wait behind it.
 *   Inline sends are as parallel as their callers (one per turn), and in order per turn.
 */
import { Worker, type Queue } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { addOnce } from './add-once.ts';
import { createDeliveryFailures, failedDelivery, type DeliveryFailures } from './delivery-failures.ts';
import { createDeliveryLedger, type DeliveryLedger } from './delivery-ledger.ts';
import { createDestinationRateLimit, type DestinationRateLimit } from './destination-rate-limit.ts';
import { outboundJobId } from './job-ids.ts';
import { createDeliveryProcessor, type OutboundJob, type OutboundJobData } from './outbound-processor.ts';
import type { Outbound, OutboundOptions } from './outbound-options.ts';
import type { AddOnceResult } from './add-once.ts';
import type { ChannelSender, DeliveryAttemptEvent, OutboundDelivery, SendReceipt } from './outbound-types.ts';
import { closeWorker } from './close-worker.ts';
import { checkPrefix, openRedis, type OpenedRedis } from './redis-connections.ts';
import { createRetryDelays } from './retry-delay.ts';
import { openProducerQueue } from './producer-queue.ts';
import { createInlineSend, type InlineOutcome } from './inline-send.ts';
import { channelPauseKey } from './send-windows.ts';
import { startOutboxSweeper } from './outbox-sweeper.ts';

export type { Outbound, OutboundOptions } from './outbound-options.ts';

const JOB_NAME = 'delivery';
/** Name of the custom BullMQ backoff type used by outbound jobs. */
const BACKOFF_TYPE = 'delivery';
const DAY_MS = 24 * 60 * 60 * 1000;
const CHANNEL_ID = /^[a-z0-9][a-z0-9_-]*$/i;
/** How often a delivery job may stall (its worker died) before it fails as `stalled`. */
const MAX_STALLS = 5;
/** Queued sends in flight at once per worker process and channel, when the sender does not say. */
const DEFAULT_CONCURRENCY = 8;

/**
 * Runs a channel's jobs one destination at a time: a job waits for the job to the same address
 * that this worker took before it, while jobs to other addresses run beside it. BullMQ starts
 * processors in the order it took the jobs, so the order per destination is the queue's.
 */
function inLanes(process: (job: OutboundJob, token?: string) => Promise<SendReceipt>): (job: OutboundJob, token?: string) => Promise<SendReceipt> {
  const lanes = new Map<string, Promise<unknown>>();
  return (job, token) => {
    const address = job.data.item.destination.address;
    const run = (lanes.get(address) ?? Promise.resolve()).then(() => process(job, token));
    const tail = run.then(() => undefined, () => undefined);
    lanes.set(address, tail);
    void tail.then(() => {
      if (lanes.get(address) === tail) lanes.delete(address);
    });
    return run;
  };
}

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
  const ledgerTtlMs = options.ledgerTtlMs ?? 30 * DAY_MS;
  const inlineLeaseMs = options.inlineLeaseMs ?? 4_000;
  const inline = createInlineSend({
    redis: producer.client,
    prefix,
    leaseMs: inlineLeaseMs,
    ledgerTtlMs,
    lineGraceMs: 15_000,
    retryDelayMs: (error, retryAfterMs) => retryDelays.plan(error, 1, retryAfterMs),
  });
  let stopSweeper: (() => Promise<void>) | undefined;
  /** Holds off a channel after a 429: the pause every limit check of its sends reads (`send-windows.ts`). */
  const throttle = async (channel: string, retryAfterMs: number): Promise<void> => {
    await producer.client.set(channelPauseKey(prefix, channel), '1', 'PX', Math.max(1, Math.ceil(retryAfterMs)));
  };

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
      onThrottled: (retryAfterMs) => throttle(channel, retryAfterMs),
    });
    const worker = new Worker<OutboundJobData, SendReceipt>(outboundQueueName(channel), inLanes(processor.process), {
      connection: shared.client.client,
      prefix,
      concurrency: sender.concurrency ?? DEFAULT_CONCURRENCY,
      lockDuration: options.jobLockDurationMs ?? 5000,
      stalledInterval: options.stalledIntervalMs ?? 2000,
      maxStalledCount: MAX_STALLS,
      settings: { backoffStrategy: retryDelays.strategy },
    });
    worker.on('error', onError);
    worker.on('failed', (job, error) => {
      if (job !== undefined) processor.failedOutside(job, error).catch((thrown: unknown) => {
        onError(toError(thrown));
      });
    });
    workers.push(worker);
  };

  const senderOf = (delivery: OutboundDelivery): ChannelSender => {
    if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The outbound queues are closed');
    const sender = Object.hasOwn(senders, delivery.channel) ? senders[delivery.channel] : undefined;
    if (sender === undefined) {
      throw new SwitchboardError('config.invalid', `No outbound sender for channel "${delivery.channel}"`, {
        details: { channel: delivery.channel },
      });
    }
    return sender;
  };

  const enqueue = async (delivery: OutboundDelivery, delayMs = 0): Promise<AddOnceResult> => {
    senderOf(delivery);
    return await addOnce(queueOf(delivery.channel), JOB_NAME, delivery, {
      ...jobOptions,
      jobId: outboundJobId(delivery.idempotencyKey),
      ...(delayMs > 0 ? { delay: delayMs } : {}),
    });
  };

  /** Reports of inline sends still being written (see `deliver`); waited for on close. */
  const reports = new Set<Promise<void>>();
  const report = async (event: DeliveryAttemptEvent): Promise<void> => {
    try {
      await options.onAttempt?.(event);
    } catch (thrown) {
      onError(toError(thrown));
    }
  };

  const inlineFailures = createDeliveryFailures({
    redis: producer.client,
    prefix,
    ...(options.failuresMaxEntries === undefined ? {} : { maxEntries: options.failuresMaxEntries }),
    ...(options.failuresTtlMs === undefined ? {} : { ttlMs: options.failuresTtlMs }),
  });

  /** Reports the inline attempt and does what its outcome asks; see {@link Outbound.deliver}. */
  const deliver = async (delivery: OutboundDelivery): Promise<AddOnceResult> => {
    const jobId = outboundJobId(delivery.idempotencyKey);
    const outcome = await inline.attempt(delivery, senderOf(delivery));
    if (outcome.kind === 'sent') {
      // Not waited for: the report's writes leave with the caller's next ones (one round trip).
      // The ledger already holds the receipt; a crash can only lose the report itself.
      const reported = report({ delivery, attempt: 1, outcome: 'sent', receipt: outcome.receipt }).finally(() => reports.delete(reported));
      reports.add(reported);
      return { jobId, duplicate: false };
    }
    if (outcome.kind === 'duplicate') return { jobId, duplicate: true };
    try {
      return await afterFailedAttempt(delivery, outcome, jobId);
    } catch (thrown) {
      // The outbox entry stays for the sweeper, which hands it to the queue after its lease.
      inline.abandon(delivery.idempotencyKey);
      throw thrown;
    }
  };

  /** A failed or held-back inline attempt: recorded, queued, then its outbox entry dropped. */
  const afterFailedAttempt = async (delivery: OutboundDelivery, outcome: Exclude<InlineOutcome, { kind: 'sent' | 'duplicate' }>, jobId: string): Promise<AddOnceResult> => {
    if (outcome.kind === 'failed') {
      await inlineFailures.record(failedDelivery(delivery, outcome.error, 1, 'permanent')).catch((thrown: unknown) => { onError(toError(thrown)); });
      await report({ delivery, attempt: 1, outcome: 'failed', error: outcome.error });
      await inline.release(delivery.idempotencyKey);
      return { jobId, duplicate: false };
    }
    const { error, delayMs } = outcome;
    if (error !== undefined) {
      if (error.retryAfterMs !== undefined && error.code === 'delivery.rate_limited') await throttle(delivery.channel, error.retryAfterMs).catch((thrown: unknown) => { onError(toError(thrown)); });
      await report({ delivery, attempt: 1, outcome: 'retry', error, nextAttemptAt: Date.now() + (delayMs ?? 0) });
    }
    const queued = await enqueue(delivery, delayMs);
    if (error !== undefined) await inline.release(delivery.idempotencyKey);
    return queued;
  };

  return {
    enqueue: (delivery) => enqueue(delivery),
    deliver,
    startWorkers() {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The outbound queues are closed');
      if (consumer !== undefined) return;
      consumer = producer.owned ? openRedis(options.connection, 'worker') : producer;
      const redis = consumer.client;
      const shared: Shared = {
        client: consumer,
        ledger: createDeliveryLedger({ redis, prefix, ttlMs: ledgerTtlMs }),
        failures: createDeliveryFailures({
          redis,
          prefix,
          ...(options.failuresMaxEntries === undefined ? {} : { maxEntries: options.failuresMaxEntries }),
          ...(options.failuresTtlMs === undefined ? {} : { ttlMs: options.failuresTtlMs }),
        }),
        rateLimit: createDestinationRateLimit({ redis, prefix }),
      };
      for (const [channel, sender] of Object.entries(senders)) startWorker(channel, sender, shared);
      stopSweeper = startOutboxSweeper({
        redis, prefix, intervalMs: options.sweepIntervalMs ?? 1000, onError,
        enqueue: (delivery) => enqueue(delivery),
        silence: { leaseMs: inlineLeaseMs, mark: (idempotencyKey, atMs) => shared.ledger.markSilent(idempotencyKey, atMs) },
      });
    },
    close() {
      closing ??= (async () => {
        await stopSweeper?.();
        await Promise.all(reports);
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
