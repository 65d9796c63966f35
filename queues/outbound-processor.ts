/**
 * What an outbound worker does with one delivery job: wait for its send limits (destination,
 * channel, provider method, a 429 pause; in the delayed set, without using an attempt), send once through the delivery ledger, decide
 * whether a failure is retried or final, record final failures, and report every attempt.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import type { OnceEnvelope } from './add-once.ts';
import { DeliveryError, summarizeDeliveryError } from './delivery-error.ts';
import { failedDelivery, type DeliveryFailureReason, type DeliveryFailures } from './delivery-failures.ts';
import type { DeliveryLedger } from './delivery-ledger.ts';
import type { DestinationRateLimit } from './destination-rate-limit.ts';
import type { ChannelRateLimit, ChannelSender, DeliveryAttemptEvent, DeliveryErrorSummary, OutboundDelivery, SendReceipt } from './outbound-types.ts';
import { moveToDelayed } from './move-to-delayed.ts';
import type { RetryDelays } from './retry-delay.ts';
import { sharedLimitsOf, type SharedLimits } from './send-windows.ts';
import { resolveUnconfirmed, UnconfirmedSendError } from './unconfirmed-send.ts';

/** The data of an outbound job. */
export type OutboundJobData = OnceEnvelope<OutboundDelivery>;

/** An outbound job as the processor sees it. */
export type OutboundJob = Job<OutboundJobData, SendReceipt>;

/** What {@link createDeliveryProcessor} works with; one per channel. */
export interface DeliveryProcessorOptions {
  readonly sender: ChannelSender;
  readonly ledger: DeliveryLedger;
  readonly failures: DeliveryFailures;
  readonly rateLimit: DestinationRateLimit;
  readonly retryDelays: RetryDelays;
  /** Called once per attempt and per deferral; a rejection goes to `onError`. */
  readonly onAttempt: ((event: DeliveryAttemptEvent) => Promise<void>) | undefined;
  /** Called when the provider throttled the channel and said for how long, in milliseconds. */
  readonly onThrottled: (retryAfterMs: number) => Promise<void>;
  readonly onError: (error: Error) => void;
}

/** The processor of one channel's outbound jobs. */
export interface DeliveryProcessor {
  /** The BullMQ processor function. */
  readonly process: (job: OutboundJob, token?: string) => Promise<SendReceipt>;
  /**
   * For the worker's `failed` event: records and reports a final failure that BullMQ decided
   * without the processor (a job that stalled too often). Other failures are ignored here.
   */
  readonly failedOutside: (job: OutboundJob, error: Error) => Promise<void>;
}

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** What a deferral was held back by, for its report: the limits that apply to the delivery. */
function limitsMessage(destination: ChannelRateLimit | undefined, shared: SharedLimits): string {
  const rate = (limit: ChannelRateLimit): string => `${String(limit.max)} per ${String(limit.durationMs)} ms`;
  const parts = [
    ...(destination === undefined ? [] : [`destination ${rate(destination)}`]),
    ...(shared.channel === undefined ? [] : [`channel ${rate(shared.channel)}`]),
    ...(shared.method === undefined ? [] : [`${shared.method.name} ${rate(shared.method.limit)}`]),
  ];
  const own = parts.length === 0 ? '' : ` (${parts.join(', ')})`;
  return `held back by its send limits${own}, a 429 pause, or an earlier delivery to the destination still waiting`;
}

/** Creates the processor of one channel's outbound jobs. */
export function createDeliveryProcessor(options: DeliveryProcessorOptions): DeliveryProcessor {
  const { sender, ledger, failures, onError } = options;
  /** Errors this processor handed to BullMQ, so the `failed` event can tell them apart. */
  const settled = new WeakSet<Error>();
  const logError = (thrown: unknown): void => {
    onError(toError(thrown));
  };

  const report = async (event: DeliveryAttemptEvent): Promise<void> => {
    if (options.onAttempt === undefined) return;
    try {
      await options.onAttempt(event);
    } catch (thrown) {
      logError(thrown);
    }
  };

  const fail = async (job: OutboundJob, attempt: number, summary: DeliveryErrorSummary, reason: DeliveryFailureReason): Promise<void> => {
    const delivery = job.data.item;
    await failures.record(failedDelivery(delivery, summary, attempt, reason)).catch(logError);
    await report({ delivery, attempt, outcome: 'failed', error: summary });
  };

  /**
   * Moves the job back to delayed when its destination, its channel or its provider method is over
   * its limit, or the channel is paused after a 429; `true` if it did.
   */
  const deferred = async (job: OutboundJob, token: string, attempt: number): Promise<boolean> => {
    // A sender with any limit has a line per destination, which even an unlimited method keeps to.
    if (sender.destinationRateLimit === undefined && sender.rateLimit === undefined && sender.methodRateLimits === undefined) return false;
    const delivery = job.data.item;
    const limit = sender.destinationRateLimit;
    const shared = sharedLimitsOf(sender, delivery);
    const holder = job.id ?? delivery.idempotencyKey;
    const waitMs = await options.rateLimit.acquire(delivery.channel, delivery.destination.address, holder, limit, shared);
    if (waitMs <= 0) return false;
    const nextAttemptAt = Date.now() + waitMs;
    await report({ delivery, attempt, outcome: 'deferred', error: { code: 'delivery.rate_limited', message: limitsMessage(limit, shared) }, nextAttemptAt });
    await moveToDelayed(job, nextAttemptAt, token);
    return true;
  };

  /**
   * Sends unless the ledger knows better; `afterFailure` when an earlier send had failed. An intent
   * without an outcome is settled with the provider first (`unconfirmed-send.ts`).
   */
  const send = async (job: OutboundJob): Promise<{ receipt: SendReceipt; afterFailure: boolean }> => {
    const delivery = job.data.item;
    const key = delivery.idempotencyKey;
    const jobId = job.id ?? '';
    sender.prefetch?.(delivery);
    const found = await ledger.begin(key, jobId, sender.providerIdempotent ?? false);
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const begun = found.kind === 'unconfirmed' ? await resolveUnconfirmed({ sender, ledger, failures, delivery, jobId, since: found.since, ...(found.silentSince === undefined ? {} : { silentSince: found.silentSince }), lastAttempt }) : found;
    if (begun.kind === 'sent') return { receipt: begun.receipt, afterFailure: false };
    let receipt: SendReceipt;
    try {
      receipt = await sender.send(delivery);
    } catch (thrown) {
      await ledger.recordFailure(key, toError(thrown).message).catch(logError);
      throw thrown;
    }
    await ledger.recordReceipt(key, receipt);
    return { receipt, afterFailure: begun.previous === 'failed' };
  };

  /** Reports a failed attempt and returns what to throw to BullMQ (retry or final). */
  const settle = async (job: OutboundJob, attempt: number, thrown: unknown): Promise<Error> => {
    const summary = summarizeDeliveryError(thrown);
    if (thrown instanceof DeliveryError && thrown.code === 'delivery.rate_limited' && thrown.retryAfterMs !== undefined) {
      await options.onThrottled(thrown.retryAfterMs).catch(logError);
    }
    const reason: DeliveryFailureReason | undefined =
      thrown instanceof UnconfirmedSendError
        ? 'unconfirmed'
        : thrown instanceof DeliveryError && thrown.permanent
          ? 'permanent'
          : attempt >= (job.opts.attempts ?? 1)
            ? 'exhausted'
            : undefined;
    let error = toError(thrown);
    if (reason === undefined) {
      const nextAttemptAt = Date.now() + options.retryDelays.plan(error, attempt, summary.retryAfterMs);
      await report({ delivery: job.data.item, attempt, outcome: 'retry', error: summary, nextAttemptAt });
    } else {
      await fail(job, attempt, summary, reason);
      if (reason !== 'exhausted') error = new UnrecoverableError(`${summary.code}: ${summary.message}`);
    }
    settled.add(error);
    return error;
  };

  return {
    process: async (job, token) => {
      if (token === undefined) throw new SwitchboardError('internal', 'BullMQ gave the delivery processor no job token');
      const attempt = job.attemptsMade + 1;
      let result: { receipt: SendReceipt; afterFailure: boolean } | undefined;
      try {
        if (!(await deferred(job, token, attempt))) result = await send(job);
      } catch (thrown) {
        throw await settle(job, attempt, thrown);
      }
      if (result === undefined) throw new DelayedError();
      const delivery = job.data.item;
      if (result.afterFailure) await failures.forget(delivery.idempotencyKey).catch(logError);
      await report({ delivery, attempt, outcome: 'sent', receipt: result.receipt });
      return result.receipt;
    },
    failedOutside: async (job, error) => {
      if (settled.has(error) || job.finishedOn === undefined) return;
      await fail(job, Math.max(1, job.attemptsMade), { code: 'delivery.failed', message: error.message }, 'stalled');
    },
  };
}
