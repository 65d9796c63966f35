/**
 * The retry delays of outbound deliveries: exponential backoff with up to 10% random extra, never
 * shorter than a `retryAfterMs` the sender reported. The delay of a failed attempt is decided
 * once, where the failure is handled (so the attempt can be reported with its next time), and
 * BullMQ's backoff strategy hands that same delay back when it re-schedules the job.
 */
import { DeliveryError } from './delivery-error.ts';

/** Options of {@link createRetryDelays}. */
export interface RetryDelayOptions {
  /** Delay before the first retry, in milliseconds; doubles on each further retry. */
  readonly backoffDelayMs: number;
  /** Upper bound of the exponential part, in milliseconds. */
  readonly maxBackoffDelayMs: number;
}

/** Retry delays; see {@link createRetryDelays}. */
export interface RetryDelays {
  /**
   * Decides the delay before retrying after attempt `attempt` (1-based) failed with `error`, in
   * milliseconds, and remembers it for {@link RetryDelays.strategy}.
   */
  plan(error: Error, attempt: number, retryAfterMs: number | undefined): number;
  /** A BullMQ `backoffStrategy`: the planned delay of `error`, or a fresh one when none was planned. */
  readonly strategy: (attemptsMade: number, type?: string, error?: Error) => number;
}

/** Creates the retry delays of one outbound queue set. */
export function createRetryDelays(options: RetryDelayOptions): RetryDelays {
  const planned = new WeakMap<Error, number>();
  const compute = (attempt: number, retryAfterMs: number | undefined): number => {
    const exponential = Math.min(options.maxBackoffDelayMs, options.backoffDelayMs * 2 ** Math.max(0, attempt - 1));
    const jittered = exponential + Math.floor(Math.random() * exponential * 0.1);
    return Math.max(jittered, retryAfterMs ?? 0);
  };
  return {
    plan(error, attempt, retryAfterMs) {
      const delayMs = compute(attempt, retryAfterMs);
      planned.set(error, delayMs);
      return delayMs;
    },
    strategy: (attemptsMade, _type, error) => {
      const delayMs = error === undefined ? undefined : planned.get(error);
      return delayMs ?? compute(attemptsMade, error instanceof DeliveryError ? error.retryAfterMs : undefined);
    },
  };
}
