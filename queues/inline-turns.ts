/**
 * Turns run where the message arrived, with no queue job: when a process that takes messages in
 * also runs turns (`role: 'all'`), the intake takes the session lock itself and runs the turn at
 * once, saving the turn queue's add, fetch and completion (three scripts and their round trips per
 * message) and the wait for a worker to poll.
 *
 * Nothing is lost when that process dies. The lock is taken in the same command that records the
 * session in a watch set (`<prefix>:inline-turns`, score: when it was taken). While the run lasts
 * the entry stays; the run removes it when it ends with nothing left to do. Every worker sweeps
 * the set every {@link InlineTurnsOptions.sweepIntervalMs}: an entry older than the lock's lifetime
 * whose session lock is gone belongs to a holder that died, and a turn job is scheduled for it (the
 * ordinary queue path, which resumes the turn from its last saved step). A dead holder's work moves
 * on after at most its lock's lifetime plus one sweep: about 3 s at the defaults.
 *
 * A run that fails is handed to the queue with the first retry's delay, so the queue's attempts and
 * backoff apply as to any turn. When this process's inline turns are at their limit but the queue's
 * own slot is free, a job is scheduled (it runs at once there). When the whole process is busy, up
 * to {@link InlineTurnsOptions.maxInFlight} more sessions wait here instead of in the queue: their
 * locks are claimed (and watched) as for a run, kept alive by the lock's heartbeat, and each runs as
 * soon as an inline slot frees, or goes to the queue when a queue slot frees first. That spares a
 * busy process a job's three scripts per turn, and a dead process's waiting sessions are recovered
 * like its runs. Past that backlog, jobs are scheduled as before.
 *
 * A session already held needs nothing: every holder (a turn job, an inline run or a waiting one)
 * looks at the mailbox again after it lets the lock go, and its own recovery covers its death.
 * A session held in this process does not even claim: the start is noted with its message's
 * accept, and once the holder is gone and those accepts are answered, the session's work is
 * looked at once more (a message can land just after the holder's last look). A conversation
 * whose next message comes while its turn runs then costs no command at its start, and a busy
 * process does not fill its backlog with claims that could only fail.
 */
import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../src/runtime/redis/redis-script.ts';
import { sessionLockKey, type ClaimedLock, type SessionLease, type SessionLock } from './session-lock.ts';

/**
 * KEYS: the watch set, then each candidate's lock key. ARGV: now (ms), then the members, then the
 * scores they were read with. A candidate whose lock is held gets `now` as its score (looked at
 * again a lifetime later); one whose lock is gone and whose score is unchanged is returned.
 */
const FIND_ORPHANS = defineScript(`
local n = (#ARGV - 1) / 2
local orphans = {}
for i = 1, n do
  local member, score = ARGV[1 + i], ARGV[1 + n + i]
  if redis.call('EXISTS', KEYS[1 + i]) == 1 then
    redis.call('ZADD', KEYS[1], 'XX', ARGV[1], member)
  elseif redis.call('ZSCORE', KEYS[1], member) == score then
    orphans[#orphans + 1] = member
  end
end
return orphans`);

/** KEYS: the watch set, the session's lock. ARGV: the member, its score or ''. Removes it while nobody holds the lock (and its score is unchanged). */
const LET_GO = defineScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[2] ~= '' and redis.call('ZSCORE', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
return redis.call('ZREM', KEYS[1], ARGV[1])`);

/** The Redis key of the watch set of inline turns. */
export function inlineTurnsKey(prefix: string): string {
  return `${prefix}:inline-turns`;
}

/** Options of {@link createInlineTurns}; `First` is what {@link InlineTurnsOptions.behindClaim} gives. */
export interface InlineTurnsOptions<First = never> {
  /** Client for the sweeps and the watch set's upkeep. Never closed here. */
  readonly redis: Redis;
  /**
   * A fail-fast client for the claim of {@link InlineTurns.start}, which a request waits on: in a
   * Redis outage it fails at once (the caller answers 503) rather than waiting for Redis. The
   * connection the messages' accepts go on, for a claim to follow an accept in one round trip.
   */
  readonly startRedis: Redis;
  readonly prefix: string;
  /** The worker's session locks (their heartbeat keeps every lease alive). */
  readonly locks: SessionLock;
  /** Where work goes when it does not run here: the turn queue. */
  readonly schedule: (sessionId: string, key: string, options?: { readonly delayMs?: number }) => Promise<void>;
  /**
   * Runs one turn under `lease` and releases it, whatever happens, looking at the session's work
   * as it does (see `SessionLease.releaseAndLook`): `maybeWork: false` when nothing waits, and the
   * session already left the watch set; `undefined` when the release failed.
   */
  readonly runLeased: (sessionId: string, lease: SessionLease, first?: Promise<First>) => Promise<{ readonly maybeWork: boolean } | undefined>;
  /**
   * Sent right behind the claim of a turn that is to run at once, on the same connection and
   * before the claim's answer (see `ClaimOptions.behind`): the turn's first command, which checks
   * the lock itself. What it gives reaches that run's `runLeased` as `first`; when the claim
   * failed it is dropped (its rejection too). It fails through its promise, never by throwing.
   * Default: none.
   */
  readonly behindClaim?: (sessionId: string, lock: ClaimedLock) => Promise<First>;
  /** Whether the session has more work once its lock is released. */
  readonly hasWork: (sessionId: string) => Promise<boolean>;
  /**
   * Most turns running at once in this process, inline and queued together. Inline turns leave
   * the queue at least one of them, so at 1 every turn is scheduled.
   */
  readonly maxInFlight: number;
  /** Turns this process runs from queue jobs now (they count against {@link InlineTurnsOptions.maxInFlight}). */
  readonly queuedRunning: () => number;
  /** Told the number of inline turns whenever it changes (the worker gives the queue the rest). */
  readonly onRunningChange?: (running: number) => void;
  /** The session lock's lifetime, ms: an entry older than this whose lock is gone is an orphan. */
  readonly lockTtlMs: number;
  /** Time between sweeps, ms: one `ZRANGEBYSCORE` per sweep when nothing is found. Default 500. */
  readonly sweepIntervalMs?: number;
  /** Delay of the queue job that takes over a failed inline run, ms. Default 1000. */
  readonly retryDelayMs?: number;
  readonly onError: (error: Error) => void;
}

/** Inline turns of one worker; see the module's comment. */
export interface InlineTurns {
  /**
   * Runs the session's turn here (resolves once it started, or waits here, not when it ends);
   * schedules a job when the process is full; does nothing when the session is held, whose holder
   * takes the work (held here, it only notes the start: see the module's comment). `accepted`,
   * when given, is the accept of the message that asks, sent on
   * {@link InlineTurnsOptions.startRedis} and not yet answered: the lock's claim is sent at once
   * behind it on that connection (Redis runs it after the accept), and the turn's first command
   * ({@link InlineTurnsOptions.behindClaim}) behind the claim, while a job is scheduled only
   * once it resolved, since a job's turn could otherwise begin before the message is in the mailbox.
   */
  start(sessionId: string, key: string, accepted?: Promise<unknown>): Promise<void>;
  /** Told when a queued turn of this process ended: a waiting session may take the slot. */
  queueSlotFreed(): void;
  /** Stops starting turns and sweeping, hands the waiting sessions to the queue, and waits for the running ones. */
  close(): Promise<void>;
}

/** A session whose lock this process holds, waiting for a slot. */
interface Waiting {
  readonly sessionId: string;
  readonly key: string;
  readonly lease: SessionLease;
}

/**
 * How long a job scheduled for the queue's free slot is taken to hold it while the worker fetches
 * it, ms; past this (another process's worker may have taken the job) the slot is free again.
 */
const QUEUE_PICKUP_MS = 250;

/** A session held in this process: the key of its first start, and the accepts of the starts it absorbed. */
interface Held {
  readonly key: string;
  /** Settles once every absorbed start's accept was answered (or failed); absent until one was absorbed. */
  accepts?: Promise<unknown>;
}

/** A claim of a turn to run at once: its lease (none when held elsewhere) and its first command's answer. */
interface Claimed<First> {
  readonly lease?: SessionLease | undefined;
  readonly first?: Promise<First> | undefined;
}

/** Most entries one sweep looks at. */
const SWEEP_BATCH = 100;

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** Starts inline turns and their sweeper. */
export function createInlineTurns<First = never>(options: InlineTurnsOptions<First>): InlineTurns {
  const { redis, prefix, locks, schedule, onError } = options;
  const watchKey = inlineTurnsKey(prefix);
  const running = new Set<Promise<void>>();
  let starting = 0;
  let closing = false;
  const inFlight = (): number => running.size + starting;
  const changed = (): void => { options.onRunningChange?.(inFlight()); };
  /**
   * Until when a job this process scheduled for the queue's free slot holds it (ms since the
   * epoch): from the add until the queue runs it, at most {@link QUEUE_PICKUP_MS}. Without it,
   * every start in between (a few ms while the worker fetches the job) saw the slot free and
   * scheduled a job of its own: under a steady backlog, a fifth to a third of all turns.
   */
  let queueSlotPromised = 0;
  const promiseQueueSlot = (): void => { queueSlotPromised = Date.now() + QUEUE_PICKUP_MS; };
  /** Turns the queue runs here now, or 1 while a job is on its way to its free slot. */
  const queueTaken = (): number => Math.max(options.queuedRunning(), Date.now() < queueSlotPromised ? 1 : 0);
  /** Whether the queue's own slot is free (it would run a job at once). */
  const queueSlotFree = (): boolean => inFlight() + queueTaken() < options.maxInFlight;
  /** Whether one more inline turn fits: one slot always stays the queue's. */
  const fits = (): boolean => inFlight() + 1 < options.maxInFlight && queueSlotFree();

  const letGo = (sessionId: string, score = ''): Promise<unknown> => runScript(redis, LET_GO, [watchKey, sessionLockKey(prefix, sessionId)], [sessionId, score]);

  /** Runs turns while the session has work and this process can take its lock again. */
  const drive = async (sessionId: string, key: string, firstLease: SessionLease, first?: Promise<First>): Promise<void> => {
    try {
      let lease: SessionLease | undefined = firstLease;
      let behind = first;
      while (lease !== undefined) {
        const ran = await options.runLeased(sessionId, lease, behind);
        behind = undefined;
        // Nothing waits: the release took the session out of the watch set too.
        if (ran?.maybeWork === false) return;
        if (!(await options.hasWork(sessionId))) break;
        lease = (await locks.claim(sessionId, { watchKey })).lease;
      }
    } catch (error) {
      onError(toError(error));
      // Until the queue has it, the entry stays for the sweeper.
      await schedule(sessionId, `${key}:inline-retry`, { delayMs: options.retryDelayMs ?? 1000 });
    }
    // Left behind on failure, the entry only costs the sweeper one empty turn job.
    await letGo(sessionId);
  };

  /**
   * The sessions this process holds (running or waiting here), with the starts they absorbed: a
   * start for a session held here claims nothing (its holder looks at the mailbox again before it
   * lets go), but its accept is kept, so that once the holder is gone a message accepted after
   * its last look is still started (see `reviewAbsorbed`).
   */
  const holding = new Map<string, Held>();
  const hold = (sessionId: string, key: string): void => {
    if (!holding.has(sessionId)) holding.set(sessionId, { key });
  };
  /** Reviews in flight, waited for on close. */
  const reviews = new Set<Promise<void>>();

  /**
   * The session's holder here is gone: when it absorbed starts, once their accepts are answered,
   * looks at the session's work again and starts it when there is some. Failing, hands the
   * session to the queue after the retry delay.
   */
  const reviewAbsorbed = (sessionId: string): void => {
    const held = holding.get(sessionId);
    holding.delete(sessionId);
    const accepts = held?.accepts;
    if (held === undefined || accepts === undefined) return;
    const review: Promise<void> = (async () => {
      await accepts;
      if (await options.hasWork(sessionId)) await start(sessionId, held.key);
    })()
      .catch(async (error: unknown) => {
        onError(toError(error));
        await schedule(sessionId, `${held.key}:absorbed`, { delayMs: options.retryDelayMs ?? 1000 });
      })
      .catch((error: unknown) => { onError(toError(error)); })
      .finally(() => { reviews.delete(review); });
    reviews.add(review);
  };

  const launch = (sessionId: string, key: string, lease: SessionLease, first?: Promise<First>): void => {
    hold(sessionId, key);
    const run: Promise<void> = drive(sessionId, key, lease, first)
      .catch((error: unknown) => { onError(toError(error)); })
      .finally(() => {
        running.delete(run);
        changed();
        next();
        reviewAbsorbed(sessionId);
      });
    running.add(run);
  };

  /** Sessions waiting for a slot, oldest first, and the claims on their way to join them. */
  const waiting: Waiting[] = [];
  let joining = 0;
  const waitRoom = (): boolean => options.maxInFlight > 1 && waiting.length + joining < options.maxInFlight;

  /** Runs waiting sessions while inline slots are free; a lease lost meanwhile is the sweeper's. */
  const next = (): void => {
    let launched = false;
    while (!closing && fits()) {
      const first = waiting.shift();
      if (first === undefined) break;
      if (first.lease.signal.aborted) {
        reviewAbsorbed(first.sessionId);
        continue;
      }
      launch(first.sessionId, first.key, first.lease);
      launched = true;
    }
    if (launched) changed();
  };

  /**
   * Gives a waiting session to the queue: its lock first (a job that found it held would leave the
   * work to this holder, which does not look again), then its job, then its watch entry. If either
   * fails, the watch entry stays: the sweeper schedules the job once the lock is gone.
   */
  const handOver = async (entry: Waiting): Promise<void> => {
    promiseQueueSlot();
    const held = holding.get(entry.sessionId);
    holding.delete(entry.sessionId);
    try {
      // The job's turns then find every message whose start this holder absorbed.
      await held?.accepts;
      await entry.lease.release();
      await schedule(entry.sessionId, entry.key);
      await letGo(entry.sessionId);
    } catch (error) {
      onError(toError(error));
    }
  };

  /** Claims the session's lock and its watch entry; undefined when it is held elsewhere. */
  const claim = async (sessionId: string, behind?: (lock: ClaimedLock) => void): Promise<SessionLease | undefined> =>
    (await locks.claim(sessionId, { watchKey, via: options.startRedis, ...(behind === undefined ? {} : { behind }) })).lease;

  /** Claims the lock of a turn to run at once, with its first command right behind (see `behindClaim`). */
  const claimToRun = async (sessionId: string): Promise<Claimed<First>> => {
    const { behindClaim } = options;
    if (behindClaim === undefined) return { lease: await claim(sessionId) };
    const sent: { first?: Promise<First> } = {};
    const lease = await claim(sessionId, (lock) => {
      const first = behindClaim(sessionId, lock);
      // Handled here too: a failed claim drops it unread.
      first.catch(() => undefined);
      sent.first = first;
    });
    return { lease, first: lease === undefined ? undefined : sent.first };
  };

  const runHere = async (sessionId: string, key: string): Promise<void> => {
    starting += 1;
    changed();
    let claimed: Claimed<First> = {};
    try {
      claimed = await claimToRun(sessionId);
    } finally {
      starting -= 1;
      if (claimed.lease === undefined) changed();
    }
    // Held: the holder (a turn job, or an inline run, watched) looks at the mailbox again once it
    // lets go, and what recovers it if it dies (its job, or its watch entry) recovers the mailbox.
    // The slot it kept meanwhile goes to a waiting session.
    if (claimed.lease === undefined) next();
    else launch(sessionId, key, claimed.lease, claimed.first);
  };

  const waitHere = async (sessionId: string, key: string): Promise<void> => {
    joining += 1;
    let lease: SessionLease | undefined;
    try {
      lease = await claim(sessionId);
    } finally {
      joining -= 1;
    }
    if (lease === undefined) return;
    if (closing) {
      await handOver({ sessionId, key, lease });
      return;
    }
    hold(sessionId, key);
    waiting.push({ sessionId, key, lease });
    next();
  };

  const start = async (sessionId: string, key: string, accepted?: Promise<unknown>): Promise<void> => {
    const held = closing ? undefined : holding.get(sessionId);
    if (held !== undefined) {
      // Chained, so a long-held session keeps one promise however many starts it absorbs.
      held.accepts = Promise.allSettled([held.accepts, accepted]);
      return;
    }
    if (!closing && fits()) {
      await runHere(sessionId, key);
      return;
    }
    // Full: wait here unless the queue's slot would run it at once, or the backlog is full too.
    if (!closing && !queueSlotFree() && waitRoom()) {
      await waitHere(sessionId, key);
      return;
    }
    if (queueSlotFree()) promiseQueueSlot();
    await accepted;
    await schedule(sessionId, key);
  };

  const queueSlotFreed = (): void => {
    queueSlotPromised = 0;
    next();
    // Inline slots are all taken: the oldest waiting session takes the queue's slot, as a job.
    const first = waiting[0];
    if (first === undefined || !queueSlotFree()) return;
    waiting.shift();
    if (!first.lease.signal.aborted) void handOver(first);
  };

  const sweep = async (): Promise<void> => {
    const now = Date.now();
    const stale = await redis.zrangebyscore(watchKey, '-inf', now - options.lockTtlMs, 'WITHSCORES', 'LIMIT', 0, SWEEP_BATCH);
    if (stale.length === 0) return;
    const members = stale.filter((_, index) => index % 2 === 0);
    const scores = stale.filter((_, index) => index % 2 === 1);
    const lockKeys = members.map((member) => sessionLockKey(prefix, member));
    const orphans = (await runScript(redis, FIND_ORPHANS, [watchKey, ...lockKeys], [now, ...members, ...scores])) as string[];
    for (const sessionId of orphans) {
      const score = scores[members.indexOf(sessionId)] ?? '';
      // The job id names the orphaned run, so sweepers in several processes add one job.
      await schedule(sessionId, `inline-orphan:${sessionId}:${score}`);
      await letGo(sessionId, score);
    }
  };

  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweep().catch((error: unknown) => { onError(toError(error)); }).finally(() => { sweeping = false; });
  }, options.sweepIntervalMs ?? 500);
  timer.unref();

  return {
    start,
    queueSlotFreed,
    async close() {
      closing = true;
      clearInterval(timer);
      await Promise.all(waiting.splice(0).filter((entry) => !entry.lease.signal.aborted).map(handOver));
      while (running.size > 0 || reviews.size > 0) await Promise.all([...running, ...reviews]);
    },
  };
}
