/**
 * The turn queue: a job asks "run the session's turn"; the turn drains the session's mailbox.
 * At most one turn per session runs at a time across every worker process, enforced by a session
 * lock (see `session-lock.ts`), while other sessions run in parallel up to each worker's
 * concurrency. A job whose session is busy does not wait in its slot: it goes back to the delayed
 * set for a short, jittered moment (not counted as an attempt) and the slot takes another job.
 *
 * Ordering within a session is the mailbox's job, not the queue's.
 *
 * If a worker process dies mid-turn, BullMQ's stalled-job check puts the job back (after the job
 * lock, `jobLockDurationMs`, runs out and the next check, every `stalledIntervalMs`), and another
 * worker runs it once the dead holder's session lock has expired (`lockTtlMs`): about 3 s after
 * the death at the defaults (see {@link createTurnWorker}).
 */
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../src/protocol/errors.ts';
import type { HeldLock } from '../src/runtime/session/held-lock.ts';
import { turnJobId } from './job-ids.ts';
import { closeWorker } from './close-worker.ts';
import { checkPrefix, openRedis, type RedisConnectionInput } from './redis-connections.ts';
import { createInlineTurns, inlineTurnsKey, type InlineTurns, type InlineTurnsOptions } from './inline-turns.ts';
import { moveToDelayed } from './move-to-delayed.ts';
import { createSessionLock, type ClaimedLock, type SessionLease } from './session-lock.ts';
import { openProducerQueue } from './producer-queue.ts';
import { turnRescue, type RescuedJobData, type TurnRescueOptions } from './turn-rescue.ts';

/** Name of the turn BullMQ queue (its keys are `<prefix>:turns:…`). */
export const TURN_QUEUE_NAME = 'turns';

const JOB_NAME = 'turn';

/** The lease defaults; what they cost and how soon they recover is told at {@link createTurnWorker}. */
const DEFAULT_SESSION_LOCK_TTL_MS = 2_500;
const DEFAULT_JOB_LOCK_MS = 2_500;
const DEFAULT_STALLED_INTERVAL_MS = 500;
/** Stalls (deaths of the worker running it) a turn job survives in a row; see {@link TurnWorkerOptions.maxStalledCount}. */
const DEFAULT_MAX_STALLED_COUNT = 2;

/** Margin added to a dead holder's remaining lock time before its job tries again, in ms. */
const EXPIRY_MARGIN_MS = 5;

type TurnJobData = RescuedJobData;

/** Options of {@link createTurnQueue}. */
export interface TurnQueueOptions {
  /**
   * Redis for the producer. A client passed in is used as is and not closed; options open a
   * fail-fast producer client, closed by `close()`.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queue. Default `sb`. */
  readonly prefix?: string;
  /** Tries per turn job, the first included (busy-session requeues do not count). Default 3. */
  readonly attempts?: number;
  /** Delay before the first retry, in milliseconds; doubles on each further retry. Default 1000. */
  readonly backoffDelayMs?: number;
  /**
   * How long a completed turn job is kept, in milliseconds; while kept, scheduling the same key
   * again adds nothing. Default 0: removed as it completes (the messages' own dedupe is at intake,
   * and a turn job scheduled again finds an empty mailbox and ends at once). Removal of kept jobs
   * is lazy, so a job may stay longer.
   */
  readonly keepCompletedMs?: number;
  /** At most this many completed turn jobs are kept, when {@link TurnQueueOptions.keepCompletedMs} is set. Default 10000. */
  readonly keepCompletedJobs?: number;
}

/** Options of {@link TurnQueue.schedule}. */
export interface TurnScheduleOptions {
  /** Wait before the job runs, in milliseconds. Default 0. */
  readonly delayMs?: number;
  /** How many rescues in a row the job is (see `turn-rescue.ts`). Default 0. */
  readonly rescues?: number;
}

/** The producer side of the turn queue. */
export interface TurnQueue {
  /**
   * Asks for a turn of `sessionId`. `key` names the reason, e.g. the injection id: scheduling the
   * same key again while its job is queued, running, failed or kept completed adds nothing; once
   * the job is gone it adds a job again (which finds nothing to do when the work was done).
   * Rejects with a `queue.closed` {@link SwitchboardError} after `close()`.
   */
  schedule(sessionId: string, key: string, options?: TurnScheduleOptions): Promise<void>;
  /** Closes the queue, and the Redis client if it was opened from options. */
  close(): Promise<void>;
}

/**
 * Creates the producer side of the turn queue.
 *
 * @example
 * const turns = createTurnQueue({ connection: redis });
 * await turns.schedule(sessionId, injection.id);
 */
export function createTurnQueue(options: TurnQueueOptions): TurnQueue {
  const prefix = checkPrefix(options.prefix);
  const redis = openRedis(options.connection, 'producer');
  const queue = openProducerQueue<TurnJobData>(TURN_QUEUE_NAME, { connection: redis.client, prefix });
  const jobOptions = {
    attempts: options.attempts ?? 3,
    backoff: { type: 'exponential', delay: options.backoffDelayMs ?? 1000 },
    removeOnComplete: (options.keepCompletedMs ?? 0) <= 0 ? true : {
      age: Math.ceil((options.keepCompletedMs ?? 0) / 1000),
      count: options.keepCompletedJobs ?? 10_000,
    },
    removeOnFail: false,
  } as const;
  let closing: Promise<void> | undefined;

  return {
    async schedule(sessionId, key, scheduleOptions = {}) {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The turn queue is closed');
      const delay = Math.max(0, Math.round(scheduleOptions.delayMs ?? 0));
      const data = scheduleOptions.rescues === undefined ? { sessionId } : { sessionId, rescues: scheduleOptions.rescues };
      await queue.add(JOB_NAME, data, { ...jobOptions, jobId: turnJobId(key), ...(delay > 0 ? { delay } : {}) });
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

/** What a turn gets besides its session id. */
export interface TurnLease<First = never> {
  /**
   * Aborted when the turn must stop: its session lock was lost (reason: `session.lock_lost`
   * {@link SwitchboardError}) or BullMQ cancelled the job.
   */
  readonly signal: AbortSignal;
  /**
   * The session lock, for the turn's last script to let go of when the session has nothing left
   * (see `HeldLock`); the worker's own release then sends nothing.
   */
  readonly lock: HeldLock;
  /**
   * The answer of the turn's first command, sent right behind its lock's claim (an inline turn of
   * a worker with {@link TurnWorkerOptions.behindClaim}); absent otherwise.
   */
  readonly first?: Promise<First>;
}

/** Options of {@link createTurnWorker}. */
export interface TurnWorkerOptions<First = never> {
  /**
   * Redis for the worker and the session locks. A client passed in must have
   * `maxRetriesPerRequest: null` and is not closed; options open such a client, closed by
   * `close()`. BullMQ opens its own blocking duplicate either way.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queue and the session locks. Default `sb`. */
  readonly prefix?: string;
  /**
   * Turns run at the same time by this worker (each of a different session), inline turns
   * included: inline turns take slots from the queue's (BullMQ's concurrency is lowered while
   * they run), always leaving the queue one, so at 1 every turn goes through the queue. A job
   * fetched just as an inline turn starts may make it one more for a moment. Default 16.
   */
  readonly concurrency?: number;
  /**
   * Session lock lifetime without a heartbeat, in milliseconds: a killed worker's sessions are
   * free again at most this long after it died, and a live worker whose event loop stalls (or
   * that cannot reach Redis) for more than four fifths of it loses them (the turn aborts, see
   * {@link TurnLease}). One heartbeat every fifth of it renews all the worker's session locks in
   * one command: 2 commands a second per worker at the default, none per turn. Default 2500.
   */
  readonly lockTtlMs?: number;
  /**
   * Delay before a job whose session is busy is tried again, in milliseconds, while the job is
   * young; a random extra of up to the same amount is added so waiting jobs spread out. A job that
   * has waited longer is tried less often: its delay grows to a tenth of its age, up to
   * {@link TurnWorkerOptions.busyMaxRetryDelayMs}. Default 50.
   */
  readonly busyRetryDelayMs?: number;
  /**
   * Upper bound of the busy-session delay (before jitter), in milliseconds. Bounds both the Redis
   * traffic of jobs waiting behind a long turn and how late they start after it. Default 1000.
   */
  readonly busyMaxRetryDelayMs?: number;
  /**
   * BullMQ job lock duration (`lockDuration`), in milliseconds. BullMQ renews the locks of all
   * the worker's running jobs in one command every eighth of it (its `lockRenewTime` is set to a
   * quarter, and it renews every half of that): 3.2 commands a second per busy worker at the
   * default. A job whose lock runs out (its worker died, or its event loop stalled for three
   * quarters of the lock) is put back by the next stalled-job check. Default 2500.
   */
  readonly jobLockDurationMs?: number;
  /**
   * Time between BullMQ stalled-job checks (`stalledInterval`), in milliseconds: a dead worker's
   * job is back at most this long after its job lock ran out. Each worker sends one command per
   * interval (2 a second at the default), idle or not. Default 500.
   */
  readonly stalledIntervalMs?: number;
  /**
   * Times a job may stall and be put back before it fails (`maxStalledCount`). Default 2: a turn
   * whose worker died and whose next worker died too (while it resumed the turn) is put back at
   * once again, not failed and left to the rescue's wait. A third death in a row (a turn that may
   * itself be what kills its workers) fails the job; the rescue then tries it later.
   */
  readonly maxStalledCount?: number;
  /**
   * Runs one turn of `sessionId`: drains the session's mailbox. Called only while this worker holds
   * the session lock. A rejection retries the job with backoff until its attempts run out. If the
   * lock is lost meanwhile, `lease.signal` aborts and the attempt fails with `session.lock_lost`
   * (retried) however `process` ends.
   */
  readonly process: (sessionId: string, lease: TurnLease<First>) => Promise<void>;
  /**
   * For inline turns: the turn's first command, sent behind its lock's claim on `inline.redis`
   * before the claim's answer, checking the lock itself (see `InlineTurnsOptions.behindClaim`);
   * `process` gets its answer as `lease.first`. Default: none.
   */
  readonly behindClaim?: (sessionId: string, lock: ClaimedLock) => Promise<First>;
  /**
   * Whether a session has work waiting. When given, a job that finds its session busy completes at
   * once (no polling), and the job holding the session calls this after releasing it and runs
   * again while it answers true. Without it, a busy session's job is delayed and retried.
   */
  readonly hasWork?: (sessionId: string) => Promise<boolean>;
  /** Receives errors of the worker, its connections and lock releases. Default: ignored. */
  readonly onError?: (error: Error) => void;
  /**
   * When given (with {@link TurnWorkerOptions.hasWork}): a turn job that failed for good while its
   * session still has work gets a new job 30 s later, up to 5 times in a row (`turn-rescue.ts`).
   */
  readonly rescue?: TurnWorkerRescue;
  /**
   * When given (with {@link TurnWorkerOptions.hasWork}), the worker also runs turns inline
   * ({@link TurnWorker.startTurn}, see `inline-turns.ts`), up to
   * {@link TurnWorkerOptions.concurrency} besides its queue jobs, and sweeps for inline turns whose
   * process died: one command every 0.5 s per worker. `queue` is the deployment's turn queue;
   * `redis` a fail-fast client (`maxRetriesPerRequest` set) for the claim a request waits on.
   */
  readonly inline?: {
    readonly queue: Pick<TurnQueue, 'schedule'>;
    readonly redis: Redis;
    /** The session's turn record key, then its lists of waiting work: looked at as its lock is let go. */
    readonly workKeys: (sessionId: string) => readonly [string, ...string[]];
  };
}

/**
 * What a worker does when a turn job failed for good with work left in its session (see
 * `turn-rescue.ts`); needs {@link TurnWorkerOptions.hasWork}.
 */
export interface TurnWorkerRescue extends Pick<TurnRescueOptions, 'delayMs' | 'max' | 'onFailed'> {
  /** The deployment's turn queue, for the rescue job. */
  readonly queue: Pick<TurnQueue, 'schedule'>;
}

/** A running turn worker. */
export interface TurnWorker {
  /**
   * Runs the session's turn in this process, at once and without a queue job, when its lock is
   * free and the worker has room; schedules it on the queue when the worker is full; leaves it to
   * the holder when the session is held. Resolves once the turn started (or was scheduled), not
   * when it ends. Present when the worker was given its queue. With `accepted` (the message's
   * accept, sent on `inline.redis` just before), see `InlineTurns.start`.
   */
  readonly startTurn?: (sessionId: string, key: string, accepted?: Promise<unknown>) => Promise<void>;
  /** Stops taking jobs, waits for the running turns, closes the worker and any client it opened. */
  close(): Promise<void>;
}

/**
 * How a turn runs under a lease: cancelled by `cancel` (BullMQ's) besides the lease's own signal,
 * and leaving `watchKey` (the inline turns' watch set) with its lock.
 */
interface LeasedRun<First> {
  readonly cancel?: AbortSignal;
  readonly watchKey?: string;
  readonly first?: Promise<First> | undefined;
}

/** Runs one turn under a lease and lets it go with `release` (the worker's `runLeased`). */
type LeasedRunner<First> = <T>(sessionId: string, lease: SessionLease, release: () => Promise<T>, run?: LeasedRun<First>) => Promise<T | undefined>;

/** The worker's inline turns, when it was given its queue and a way to tell work. */
function inlineTurnsOf<First>(
  options: TurnWorkerOptions<First>,
  { runLeased, ...parts }: Pick<InlineTurnsOptions<First>, 'redis' | 'prefix' | 'locks' | 'onError' | 'queuedRunning' | 'onRunningChange'> & { readonly runLeased: LeasedRunner<First> },
): InlineTurns | undefined {
  const { inline, hasWork } = options;
  if (inline === undefined || hasWork === undefined) return undefined;
  const watchKey = inlineTurnsKey(parts.prefix);
  return createInlineTurns({
    ...parts,
    // The release looks at the session's work and leaves the watch set in the same command.
    runLeased: (sessionId, lease, first) => runLeased(sessionId, lease, () => lease.releaseAndLook({ watchKey, workKeys: inline.workKeys(sessionId) }), { watchKey, first }),
    ...(options.behindClaim === undefined ? {} : { behindClaim: options.behindClaim }),
    startRedis: inline.redis,
    schedule: (sessionId, key, scheduleOptions) => inline.queue.schedule(sessionId, key, scheduleOptions),
    hasWork,
    maxInFlight: options.concurrency ?? 16,
    lockTtlMs: options.lockTtlMs ?? DEFAULT_SESSION_LOCK_TTL_MS,
  });
}

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/**
 * Starts a worker on the turn queue.
 *
 * How soon a dead worker's turns move on, and what that costs in Redis commands at the defaults.
 * Liveness is two short leases (2.5 s each) that a live worker renews, each with one command per
 * worker whatever the number of turns it runs, plus BullMQ's stalled-job check:
 * - session locks ({@link TurnWorkerOptions.lockTtlMs}): one heartbeat every 0.5 s extends all
 *   the worker's session locks, 2 commands a second per worker while it runs any turn;
 * - BullMQ job locks ({@link TurnWorkerOptions.jobLockDurationMs}): renewed all together every
 *   0.31 s (BullMQ's `lockRenewTime` is set to a quarter of the lock, and it renews every half of
 *   that), 3.2 commands a second per worker while it runs any job;
 * - the stalled-job check ({@link TurnWorkerOptions.stalledIntervalMs}): every 0.5 s on each
 *   worker, 2 commands a second per worker, idle or not (one worker does the work per interval).
 *
 * So about 7 commands a second per busy worker and 2 per idle one, and none per running turn: a
 * turn is one more key in each batch.
 *
 * After a SIGKILL the worker's session locks expire within 2 to 2.5 s, and its jobs are put back
 * by the first stalled check after their job lock ran out (about 2.2 to 3 s after the kill);
 * another worker then resumes each turn from its last saved step. A live worker whose event loop
 * stalls (or that cannot reach Redis) for more than about 1.9 s loses its turns the same way: each
 * turn's signal aborts, its attempt fails with `session.lock_lost` and the turn resumes elsewhere.
 */
export function createTurnWorker<First = never>(options: TurnWorkerOptions<First>): TurnWorker {
  const prefix = checkPrefix(options.prefix);
  const redis = openRedis(options.connection, 'worker');
  const locks = createSessionLock({ redis: redis.client, prefix, ttlMs: options.lockTtlMs ?? DEFAULT_SESSION_LOCK_TTL_MS });
  const busyRetryDelayMs = options.busyRetryDelayMs ?? 50;
  const busyMaxRetryDelayMs = Math.max(busyRetryDelayMs, options.busyMaxRetryDelayMs ?? 1000);
  /** Delay for a busy session's job: short while the job is young, longer as it keeps waiting. */
  const busyDelay = (job: Job<TurnJobData>): number => {
    const age = Math.max(0, Date.now() - job.timestamp);
    const base = Math.min(busyMaxRetryDelayMs, Math.max(busyRetryDelayMs, Math.floor(age / 10)));
    return base + Math.floor(Math.random() * (base + 1));
  };
  const onError = options.onError ?? (() => undefined);

  const concurrency = options.concurrency ?? 16;
  /** Turns this worker runs from jobs now; inline turns share {@link concurrency} with them. */
  let jobsRunning = 0;
  /** Told when a job's turn ended (set once the inline turns exist: BullMQ may start a job first). */
  const hooks: { jobEnded?: () => void } = {};

  const processJob = async (job: Job<TurnJobData>, token?: string, cancel?: AbortSignal): Promise<void> => {
    if (token === undefined) {
      throw new SwitchboardError('internal', 'BullMQ gave the turn processor no job token');
    }
    jobsRunning += 1;
    try {
      await runJob(job, token, cancel);
    } finally {
      jobsRunning -= 1;
      hooks.jobEnded?.();
    }
  };

  const runJob = async (job: Job<TurnJobData>, token: string, cancel?: AbortSignal): Promise<void> => {
    const { sessionId } = job.data;
    for (;;) {
      const { lease, heldForMs } = await locks.claim(sessionId);
      if (lease === undefined) {
        // With hasWork, the holder re-checks the session after releasing it, so a first attempt's
        // work cannot be stranded: it completes at once instead of waiting for the lock. A job
        // that stalled or failed before may itself be the holder that died: it waits for the lock,
        // and tries again no later than just after that lock runs out.
        const firstAttempt = job.stalledCounter === 0 && job.attemptsMade === 0;
        if (options.hasWork !== undefined && firstAttempt) return;
        await moveToDelayed(job, Date.now() + Math.min(busyDelay(job), heldForMs + EXPIRY_MARGIN_MS), token);
        throw new DelayedError();
      }
      await runLeased(sessionId, lease, () => lease.release(), cancel === undefined ? {} : { cancel });
      if (options.hasWork === undefined || !(await options.hasWork(sessionId))) return;
    }
  };

  /** Runs one turn under `lease` (see {@link LeasedRun}), then lets it go with `release`; what that said, if it worked. */
  const runLeased = async <T>(sessionId: string, lease: SessionLease, release: () => Promise<T>, { cancel, watchKey, first }: LeasedRun<First> = {}): Promise<T | undefined> => {
    const signal = cancel === undefined ? lease.signal : AbortSignal.any([lease.signal, cancel]);
    let released: T | undefined;
    try {
      try {
        await options.process(sessionId, { signal, lock: lease.heldLock(watchKey), ...(first === undefined ? {} : { first }) });
      } catch (error) {
        throw lease.signal.aborted ? toError(lease.signal.reason) : error;
      }
      // A turn that lost its lock may have overlapped another; it does not count as done.
      if (lease.signal.aborted) throw toError(lease.signal.reason);
    } finally {
      // If the release fails the lock still expires after lockTtlMs.
      released = await release().catch((error: unknown) => {
        onError(toError(error));
        return undefined;
      });
    }
    return released;
  };

  const jobLockMs = options.jobLockDurationMs ?? DEFAULT_JOB_LOCK_MS;
  const worker = new Worker<TurnJobData>(TURN_QUEUE_NAME, processJob, {
    connection: redis.client,
    prefix,
    concurrency,
    lockDuration: jobLockMs,
    // BullMQ renews every half of lockRenewTime; a quarter of the lock keeps a fresh job's first
    // renewal within 1/4 of it, so the lock outlives any stall of the event loop under 3/4.
    lockRenewTime: jobLockMs / 4,
    stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: options.maxStalledCount ?? DEFAULT_MAX_STALLED_COUNT,
  });
  worker.on('error', onError);
  const { rescue, hasWork } = options;
  if (rescue !== undefined && hasWork !== undefined) {
    const onFailed = turnRescue({ ...rescue, hasWork, schedule: (sessionId, key, scheduled) => rescue.queue.schedule(sessionId, key, scheduled) });
    worker.on('failed', (job, error) => {
      onFailed(job, error).catch((thrown: unknown) => { onError(toError(thrown)); });
    });
  }
  // Inline turns take their slots from the queue's: BullMQ fetches for what is left (at least one).
  const inline = inlineTurnsOf(options, {
    redis: redis.client, prefix, locks, onError,
    runLeased,
    queuedRunning: () => jobsRunning,
    onRunningChange: (running) => { worker.concurrency = Math.max(1, concurrency - running); },
  });
  if (inline !== undefined) hooks.jobEnded = () => { inline.queueSlotFreed(); };
  let closing: Promise<void> | undefined;

  return {
    ...(inline === undefined ? {} : { startTurn: (sessionId: string, key: string, accepted?: Promise<unknown>) => inline.start(sessionId, key, accepted) }),
    close() {
      closing ??= (async () => {
        try {
          await inline?.close();
          await closeWorker(worker, redis.client);
        } finally {
          await redis.close();
        }
      })();
      return closing;
    },
  };
}
