/**
 * A turn job that fails for good (its attempts spent, or it stalled too often, e.g. through a long
 * Redis outage or worker crashes one after the other) would leave its session's messages in the
 * mailbox until the person writes again. The rescue looks at the session when that happens: if it
 * still has work, a new job runs it a while later, a few times in a row at most, so a turn caught
 * in an outage still ends, and one that fails whatever happens stops being tried.
 */
import type { Job } from 'bullmq';

/** What a turn job carries that the rescue reads. */
export interface RescuedJobData {
  readonly sessionId: string;
  /** How many rescues in a row this job is (0 or absent: a job of its own). */
  readonly rescues?: number;
}

/** A turn job that failed for good, as told to {@link TurnRescueOptions.onFailed}. */
export interface TurnFailure {
  readonly sessionId: string;
  /** The last attempt's error. */
  readonly error: Error;
  /** The number of the rescue now scheduled (1 for the first); absent when none was. */
  readonly rescue?: number;
  /** True when the session still has work and no rescue is left: it waits for its next message. */
  readonly gaveUp: boolean;
}

/** Options of {@link turnRescue}. */
export interface TurnRescueOptions {
  /** Schedules a turn job for `sessionId` under `key`, `delayMs` later, counting `rescues`. */
  readonly schedule: (sessionId: string, key: string, options: { readonly delayMs: number; readonly rescues: number }) => Promise<void>;
  /** Whether the session has work waiting (a turn record, or messages in its mailbox). */
  readonly hasWork: (sessionId: string) => Promise<boolean>;
  /** Wait before a rescue job runs, in milliseconds. Default 30 000. */
  readonly delayMs?: number;
  /** Rescues in a row before the session is left to its next message. Default 5. */
  readonly max?: number;
  /** Told of every job that failed for good with work left in its session. Default: nothing. */
  readonly onFailed?: (failure: TurnFailure) => void;
}

/**
 * The handler for a turn worker's `failed` event: does nothing for an attempt that will be
 * retried (the job has no `finishedOn` yet) or a session with nothing left to do.
 */
export function turnRescue(options: TurnRescueOptions): (job: Job<RescuedJobData> | undefined, error: Error) => Promise<void> {
  const delayMs = options.delayMs ?? 30_000;
  const max = options.max ?? 5;
  return async (job, error) => {
    if (job?.finishedOn === undefined) return;
    const { sessionId } = job.data;
    const done = job.data.rescues ?? 0;
    if (!(await options.hasWork(sessionId))) return;
    if (done >= max) {
      options.onFailed?.({ sessionId, error, gaveUp: true });
      return;
    }
    // Keyed by the failed job: the rescue is added once, whichever worker saw the failure.
    await options.schedule(sessionId, `rescue:${job.id ?? sessionId}`, { delayMs, rescues: done + 1 });
    options.onFailed?.({ sessionId, error, rescue: done + 1, gaveUp: false });
  };
}
