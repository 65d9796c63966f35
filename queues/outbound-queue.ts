/**
 * The outbound queues: one BullMQ queue per channel, `outbound-<channel>`, so each channel has its
 * own rate limit and a slow provider holds up only its own channel.
 *
 * - Enqueue is idempotent: the job id is `out-` + sha256(idempotency key).
 * - Send is idempotent across crashes: the delivery ledger (see `delivery-ledger.ts`) records the
 *   intent before `send` and the receipt after; a retried job that finds a receipt completes
 *   without sending again.
 * - Failures retry with exponential backoff, never sooner than a `retryAfterMs` the sender
 *   reported; a permanent failure stops at once. Failed jobs are kept for inspection.
 */
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { addOnce, type AddOnceResult, type OnceEnvelope } from './add-once.ts';
import { DeliveryError } from './delivery-error.ts';
import { createDeliveryLedger, type DeliveryLedger } from './delivery-ledger.ts';
import { outboundJobId } from './job-ids.ts';
import type { ChannelSender, OutboundDelivery, SendReceipt } from './outbound-types.ts';
import { checkPrefix, openRedis, type OpenedRedis, type RedisConnectionInput } from './redis-connections.ts';

const JOB_NAME = 'delivery';
/** Name of the custom BullMQ backoff type used by outbound jobs. */
const BACKOFF_TYPE = 'delivery';
const DAY_MS = 24 * 60 * 60 * 1000;
const CHANNEL_ID = /^[a-z0-9][a-z0-9_-]*$/i;

type OutboundJobData = OnceEnvelope<OutboundDelivery>;

/** The BullMQ queue name of a channel's outbound queue: `outbound-<channel>`. */
export function outboundQueueName(channel: string): string {
  return `outbound-${channel}`;
}

/** Options of {@link createOutbound}. */
export interface OutboundOptions {
  /**
   * Redis. A client passed in is used for the queues, the workers and the ledger and is not closed;
   * it must then have `maxRetriesPerRequest: null` if workers run. Options open a fail-fast
   * producer client for the queues and, on {@link Outbound.startWorkers}, a worker client for the
   * workers and the ledger; `close()` closes both.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queues and the ledger. Default `sb`. */
  readonly prefix?: string;
  /** One sender per channel id (letters, digits, `_`, `-`). */
  readonly senders: Readonly<Record<string, ChannelSender>>;
  /** Tries per delivery, the first included. Default 8. */
  readonly attempts?: number;
  /**
   * Delay before the first retry, in milliseconds; doubles on each further retry, plus up to 10%
   * random extra, and is raised to the sender's `retryAfterMs` when that is longer. Default 1000.
   */
  readonly backoffDelayMs?: number;
  /** Upper bound of the exponential part of the backoff, in milliseconds. Default 600000 (10 minutes). */
  readonly maxBackoffDelayMs?: number;
  /**
   * How long a completed delivery job is kept, in milliseconds; while kept, enqueueing the same
   * idempotency key again adds nothing (after that, the ledger still prevents a second send).
   * Default 604800000 (7 days). Removal is lazy, so a job may stay longer.
   */
  readonly dedupeWindowMs?: number;
  /** At most this many completed delivery jobs are kept per channel. Default 100000. */
  readonly dedupeMaxJobs?: number;
  /** How long a ledger entry lives after its last write, in milliseconds. Default 2592000000 (30 days). */
  readonly ledgerTtlMs?: number;
  /** BullMQ job lock duration (`lockDuration`), in milliseconds. Default 30000. */
  readonly jobLockDurationMs?: number;
  /** Time between BullMQ stalled-job checks (`stalledInterval`), in milliseconds. Default 30000. */
  readonly stalledIntervalMs?: number;
  /** Receives errors of the workers and their connections. Default: ignored. */
  readonly onError?: (error: Error) => void;
}

/** The outbound queues of every configured channel. */
export interface Outbound {
  /**
   * Durably enqueues `delivery` on its channel's queue. `{ duplicate: true }` when a job with the
   * same idempotency key is queued, running, failed, or completed within the dedupe window.
   *
   * @throws SwitchboardError `config.invalid` when no sender is configured for `delivery.channel`;
   * `queue.closed` after `close()`.
   */
  enqueue(delivery: OutboundDelivery): Promise<AddOnceResult>;
  /** Starts one worker per channel in this process. Calling it again does nothing. */
  startWorkers(): void;
  /** Stops the workers (waiting for sends in flight), closes the queues and any client opened here. */
  close(): Promise<void>;
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
      queue = new Queue<OutboundJobData>(outboundQueueName(channel), { connection: producer.client, prefix });
      queues.set(channel, queue);
    }
    return queue;
  };

  /** Exponential backoff with up to 10% extra, never below the sender's Retry-After. */
  const backoffStrategy = (attemptsMade: number, _type?: string, error?: Error): number => {
    const exponential = Math.min(maxBackoffDelayMs, backoffDelayMs * 2 ** Math.max(0, attemptsMade - 1));
    const jittered = exponential + Math.floor(Math.random() * exponential * 0.1);
    const retryAfterMs = error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0;
    return Math.max(jittered, retryAfterMs);
  };

  const startWorker = (channel: string, sender: ChannelSender, ledger: DeliveryLedger, client: OpenedRedis): void => {
    const failure = async (thrown: unknown): Promise<Error> => {
      if (thrown instanceof DeliveryError && thrown.permanent) {
        return new UnrecoverableError(`${thrown.code}: ${thrown.message}`);
      }
      if (
        thrown instanceof DeliveryError &&
        thrown.code === 'delivery.rate_limited' &&
        thrown.retryAfterMs !== undefined &&
        sender.rateLimit !== undefined
      ) {
        // Hold off the whole channel, not just this job (BullMQ applies it only with a limiter).
        // If that fails, the job's own backoff still honours retryAfterMs.
        await queueOf(channel)
          .rateLimit(thrown.retryAfterMs)
          .catch((error: unknown) => {
            onError(toError(error));
          });
      }
      return toError(thrown);
    };

    const processJob = async (job: Job<OutboundJobData, SendReceipt>): Promise<SendReceipt> => {
      const delivery = job.data.item;
      const key = delivery.idempotencyKey;
      const begun = await ledger.begin(key, job.id ?? '', sender.providerIdempotent ?? false);
      if (begun.kind === 'sent') return begun.receipt;
      if (begun.kind === 'unconfirmed') {
        throw new UnrecoverableError(
          'delivery.failed: an earlier attempt may have sent this delivery (intent recorded, no outcome); ' +
            'not sending again because the sender is not provider-idempotent',
        );
      }
      let receipt: SendReceipt;
      try {
        receipt = await sender.send(delivery);
      } catch (thrown) {
        try {
          await ledger.recordFailure(key, toError(thrown).message);
        } catch (ledgerError) {
          onError(toError(ledgerError));
        }
        throw await failure(thrown);
      }
      await ledger.recordReceipt(key, receipt);
      return receipt;
    };

    const worker = new Worker<OutboundJobData, SendReceipt>(outboundQueueName(channel), processJob, {
      connection: client.client,
      prefix,
      concurrency: sender.concurrency ?? 1,
      lockDuration: options.jobLockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      settings: { backoffStrategy },
      ...(sender.rateLimit === undefined
        ? {}
        : { limiter: { max: sender.rateLimit.max, duration: sender.rateLimit.durationMs } }),
    });
    worker.on('error', onError);
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
      const ledger = createDeliveryLedger({
        redis: consumer.client,
        prefix,
        ...(options.ledgerTtlMs === undefined ? {} : { ttlMs: options.ledgerTtlMs }),
      });
      for (const [channel, sender] of Object.entries(senders)) startWorker(channel, sender, ledger, consumer);
    },
    close() {
      closing ??= (async () => {
        const results = await Promise.allSettled(workers.map((worker) => worker.close()));
        results.push(...(await Promise.allSettled([...queues.values()].map((queue) => queue.close()))));
        results.push(...(await Promise.allSettled([consumer?.close(), producer.close()])));
        const failed = results.find((result) => result.status === 'rejected');
        if (failed !== undefined) throw toError(failed.reason);
      })();
      return closing;
    },
  };
}
