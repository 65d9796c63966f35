import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { inlineTurnsKey } from './inline-turns.ts';
import { useTestResources } from './queue-test-kit.ts';
import { createSessionLock, sessionLockKey, type ClaimedLock } from './session-lock.ts';
import { createTurnQueue, createTurnWorker, TURN_QUEUE_NAME, type TurnLease, type TurnWorker } from './turn-queue.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

/** Jobs the turn queue holds in any state, counted by a kept completion. */
async function jobsEver(): Promise<number> {
  const queue = resources.track(new Queue(TURN_QUEUE_NAME, { connection: resources.redis('producer'), prefix: prefix() }));
  const counts = await queue.getJobCounts('completed', 'active', 'wait', 'delayed', 'failed');
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

interface Worked {
  readonly worker: TurnWorker & { readonly startTurn: NonNullable<TurnWorker['startTurn']> };
  readonly ran: string[];
}

/** Work waiting per session, in Redis where the lock's release looks at it. */
interface Mailbox {
  readonly keys: (sessionId: string) => readonly [string, string];
  add(sessionId: string): Promise<void>;
  take(sessionId: string): Promise<void>;
  has(sessionId: string): Promise<boolean>;
}

function mailbox(): Mailbox {
  const redis = resources.redis('worker');
  const pendingKey = (sessionId: string): string => `${prefix()}:work:${sessionId}:pending`;
  return {
    keys: (sessionId) => [`${prefix()}:work:${sessionId}:turn`, pendingKey(sessionId)],
    async add(sessionId) { await redis.rpush(pendingKey(sessionId), 'message'); },
    async take(sessionId) { await redis.del(pendingKey(sessionId)); },
    async has(sessionId) { return (await redis.llen(pendingKey(sessionId))) > 0; },
  };
}

/** The fail-fast client of the claims, ready before the first (as the service's shared client). */
async function claimsClient(): Promise<Redis> {
  const client = resources.redis('producer');
  if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  return client;
}

/** A worker with its queue (so it runs turns inline); `work` is each turn, `pending` the work waiting. */
async function inlineWorker(options: { readonly work?: (sessionId: string, lease: TurnLease<unknown>) => Promise<void>; readonly pending?: Mailbox; readonly concurrency?: number; readonly lockTtlMs?: number; readonly hasWork?: (sessionId: string) => Promise<boolean>; readonly behindClaim?: (sessionId: string, lock: ClaimedLock) => Promise<unknown>; readonly startRedis?: Redis } = {}): Promise<Worked> {
  const ran: string[] = [];
  const startRedis = options.startRedis ?? (await claimsClient());
  const queue = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: 3_600_000 }));
  const pending = options.pending ?? mailbox();
  const worker = resources.track(createTurnWorker<unknown>({
    connection: resources.redis('worker'),
    prefix: prefix(),
    inline: { queue, redis: startRedis, workKeys: pending.keys },
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.lockTtlMs === undefined ? {} : { lockTtlMs: options.lockTtlMs }),
    ...(options.behindClaim === undefined ? {} : { behindClaim: options.behindClaim }),
    process: async (sessionId, lease) => {
      ran.push(sessionId);
      await pending.take(sessionId);
      await options.work?.(sessionId, lease);
    },
    hasWork: options.hasWork ?? ((sessionId) => pending.has(sessionId)),
  }));
  if (worker.startTurn === undefined) throw new Error('a worker given its queue runs turns inline');
  return { worker: worker as Worked['worker'], ran };
}

/** Turns held until their session's gate opens (`open`), or every gate at the end (`openAll`). */
function gates(): { hold(sessionId: string): Promise<void>; open(sessionId: string): void; openAll(): void } {
  const waiting = new Map<string, () => void>();
  return {
    hold: (sessionId) => new Promise((resolve) => { waiting.set(sessionId, resolve); }),
    open: (sessionId) => { waiting.get(sessionId)?.(); },
    openAll: () => { for (const open of waiting.values()) open(); },
  };
}

describe('inline turns', () => {
  it('runs the turn in this process at once, with no queue job, and leaves nothing watched', async () => {
    const { worker, ran } = await inlineWorker();
    await worker.startTurn('s-inline', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-inline']); });
    const redis = resources.redis('worker');
    await vi.waitFor(async () => { expect(await redis.zcard(inlineTurnsKey(prefix()))).toBe(0); });
    expect(await redis.exists(sessionLockKey(prefix(), 's-inline'))).toBe(0);
    expect(await jobsEver()).toBe(0);
  });

  it('gives the turn its lock and watch entry, for its last script to let go of when nothing is left', async () => {
    const redis = resources.redis('worker');
    // What a finish does when the mailbox is empty: the lock (while it holds our token) and the
    // watch entry go in one script, and the lease is told.
    const finish = async (sessionId: string, { lock }: TurnLease<unknown>): Promise<void> => {
      const deleted = await redis.eval("if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end redis.call('DEL', KEYS[1]) redis.call('ZREM', KEYS[2], ARGV[2]) return 1", 2, lock.key, lock.watchKey ?? '', lock.token, sessionId);
      if (deleted === 1) lock.letGo();
    };
    const { worker, ran } = await inlineWorker({ work: finish });
    await worker.startTurn('s-let-go', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-let-go']); });
    await vi.waitFor(async () => { expect(await redis.exists(sessionLockKey(prefix(), 's-let-go'))).toBe(0); });
    expect(await redis.zcard(inlineTurnsKey(prefix()))).toBe(0);
    // The next message finds the session free and runs at once.
    await worker.startTurn('s-let-go', 'm-2');
    await vi.waitFor(() => { expect(ran).toEqual(['s-let-go', 's-let-go']); });
    expect(await jobsEver()).toBe(0);
  });

  it('keeps running while the session has more work, then lets go', async () => {
    const pending = mailbox();
    let rounds = 0;
    const { worker, ran } = await inlineWorker({ pending, work: async (sessionId) => { rounds += 1; if (rounds < 3) await pending.add(sessionId); } });
    await worker.startTurn('s-more', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-more', 's-more', 's-more']); });
    expect(await jobsEver()).toBe(0);
  });

  it('claims nothing for a session it holds, and starts a message accepted after the holder\'s last look once the holder is gone', async () => {
    const pending = mailbox();
    let finish: (() => void) | undefined;
    const long = new Promise<void>((resolve) => { finish = resolve; });
    const { worker, ran } = await inlineWorker({ pending, work: () => (ran.length === 1 ? long : Promise.resolve()) });
    const lockKey = sessionLockKey(prefix(), 's-late');
    await worker.startTurn('s-late', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-late']); });
    const token = await resources.redis('worker').get(lockKey);
    // Asked while the turn runs, with its accept still on its way: nothing is claimed.
    let answer: (() => void) | undefined;
    const accepted = new Promise<void>((resolve) => { answer = resolve; });
    await worker.startTurn('s-late', 'm-2', accepted);
    expect(await resources.redis('worker').get(lockKey)).toBe(token);
    // The turn ends with an empty mailbox and lets go; only then does the message land.
    finish?.();
    await vi.waitFor(async () => { expect(await resources.redis('worker').exists(lockKey)).toBe(0); });
    await pending.add('s-late');
    answer?.();
    await vi.waitFor(() => { expect(ran).toEqual(['s-late', 's-late']); }, { timeout: 5000 });
    expect(await jobsEver()).toBe(0);
  });

  it('hands the session to the queue when the look at its work after the holder fails, and the job runs the message', async () => {
    const pending = mailbox();
    let failures = 0;
    const hasWork = (sessionId: string): Promise<boolean> => {
      if (failures === 0) return pending.has(sessionId);
      failures -= 1;
      return Promise.reject(new Error('Redis went away'));
    };
    let finish: (() => void) | undefined;
    const long = new Promise<void>((resolve) => { finish = resolve; });
    const { worker, ran } = await inlineWorker({ pending, hasWork, work: () => (ran.length === 1 ? long : Promise.resolve()) });
    const lockKey = sessionLockKey(prefix(), 's-review');
    await worker.startTurn('s-review', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-review']); });
    let answer: (() => void) | undefined;
    await worker.startTurn('s-review', 'm-2', new Promise<void>((resolve) => { answer = resolve; }));
    finish?.();
    await vi.waitFor(async () => { expect(await resources.redis('worker').exists(lockKey)).toBe(0); });
    await pending.add('s-review');
    failures = 1;
    answer?.();
    await vi.waitFor(async () => { expect(await jobsEver()).toBe(1); });
    await vi.waitFor(() => { expect(ran).toEqual(['s-review', 's-review']); }, { timeout: 5000 });
    expect(failures).toBe(0);
  });

  it('starts nothing more for a noted start whose accept failed, when the session has no work', async () => {
    const pending = mailbox();
    let finish: (() => void) | undefined;
    const long = new Promise<void>((resolve) => { finish = resolve; });
    const { worker, ran } = await inlineWorker({ pending, work: () => long });
    await worker.startTurn('s-failed', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-failed']); });
    const accepted = Promise.reject(new Error('Redis went away'));
    accepted.catch(() => undefined);
    await worker.startTurn('s-failed', 'm-2', accepted);
    finish?.();
    await vi.waitFor(async () => { expect(await resources.redis('worker').zcard(inlineTurnsKey(prefix()))).toBe(0); });
    await worker.close();
    expect(ran).toEqual(['s-failed']);
    expect(await jobsEver()).toBe(0);
  });

  it('sends the turn\'s first command right behind its lock\'s claim and hands the run its answer; a claim that failed drops it', async () => {
    // The command goes on the claims' own connection, where Redis runs it right after the claim.
    const startRedis = await claimsClient();
    const asked: string[] = [];
    // Answers whether the lock held the token when it ran: it runs right after the claim.
    const behindClaim = (sessionId: string, lock: ClaimedLock): Promise<unknown> => {
      asked.push(sessionId);
      return startRedis.eval("return redis.call('GET', KEYS[1]) == ARGV[1] and 'held' or 'not held'", 1, lock.key, lock.token);
    };
    const firsts: unknown[] = [];
    const { worker, ran } = await inlineWorker({ behindClaim, startRedis, work: async (_sessionId, lease) => { firsts.push(await lease.first); } });
    await worker.startTurn('s-first', 'm-1');
    await vi.waitFor(() => { expect(firsts).toEqual(['held']); }, { timeout: 5000 });
    // Held elsewhere: the command finds the lock not ours, and nothing runs here.
    const elsewhere = await createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 10_000 }).tryAcquire('s-taken');
    try {
      await worker.startTurn('s-taken', 'm-1');
      expect(asked).toEqual(['s-first', 's-taken']);
      expect(ran).toEqual(['s-first']);
    } finally {
      await elsewhere?.release();
    }
  });

  it('adds no job when the session is held elsewhere: the holder takes the new work when its turn ends', async () => {
    const pending = mailbox();
    let finish: (() => void) | undefined;
    const long = new Promise<void>((resolve) => { finish = resolve; });
    const holder = await inlineWorker({ pending, work: () => long });
    const other = await inlineWorker({ pending });
    await holder.worker.startTurn('s-held', 'm-1');
    try {
      // A second message arrives (it is pending before its turn is asked for) while the first runs.
      await pending.add('s-held');
      await other.worker.startTurn('s-held', 'm-2');
      expect(other.ran).toEqual([]);
      expect(await jobsEver()).toBe(0);
    } finally {
      finish?.();
    }
    await vi.waitFor(() => { expect(holder.ran).toEqual(['s-held', 's-held']); }, { timeout: 5000 });
    expect(other.ran).toEqual([]);
    expect(await jobsEver()).toBe(0);
  });

  // The queue's one slot gets one job: s-c waits here whether it asks once s-b's job runs, or
  // back to back with s-b, before the worker has fetched that job.
  it.each([
    ['once the queue\'s job runs', true],
    ['while the worker is still fetching the queue\'s job', false],
  ])('keeps to the worker\'s concurrency, inline and queued turns together, one slot the queue\'s: a third session asking %s waits here', async (_when, afterJobRuns) => {
    const gate = gates();
    const { worker, ran } = await inlineWorker({ concurrency: 2, work: (sessionId) => (sessionId === 's-c' ? Promise.resolve() : gate.hold(sessionId)) });
    try {
      await worker.startTurn('s-a', 'm-a');
      await vi.waitFor(() => { expect(ran).toEqual(['s-a']); });
      // One inline turn runs; the last slot is the queue's, so s-b gets a job, which runs at once.
      await worker.startTurn('s-b', 'm-b');
      if (afterJobRuns) await vi.waitFor(() => { expect(ran).toEqual(['s-a', 's-b']); });
      // Both slots are taken (or promised): s-c waits here, its lock held and watched, with no job.
      await worker.startTurn('s-c', 'm-c');
      expect(await jobsEver()).toBe(1);
      await vi.waitFor(() => { expect(ran).toEqual(['s-a', 's-b']); });
      expect(await resources.redis('worker').exists(sessionLockKey(prefix(), 's-c'))).toBe(1);
      // The queue's slot frees first: s-c takes it, as a job.
      gate.open('s-b');
      await vi.waitFor(() => { expect(ran).toEqual(['s-a', 's-b', 's-c']); }, { timeout: 5000 });
      expect(await jobsEver()).toBe(2);
    } finally {
      gate.openAll();
    }
  });

  it('keeps a busy process\'s next sessions waiting here, not in the queue, and runs each as an inline slot frees', async () => {
    const gate = gates();
    const { worker, ran } = await inlineWorker({ concurrency: 3, work: (sessionId) => (sessionId.startsWith('s-wait') ? Promise.resolve() : gate.hold(sessionId)) });
    try {
      await worker.startTurn('s-a', 'm-a');
      await worker.startTurn('s-b', 'm-b');
      await worker.startTurn('s-c', 'm-c');
      await vi.waitFor(() => { expect(ran).toEqual(['s-a', 's-b', 's-c']); });
      // Two inline turns and the queue's one: the process is full. Three more wait here, the
      // fourth past the backlog of three goes to the queue.
      for (const sessionId of ['s-wait-1', 's-wait-2', 's-wait-3', 's-wait-4']) await worker.startTurn(sessionId, `m-${sessionId}`);
      expect(await jobsEver()).toBe(2);
      expect(ran).toHaveLength(3);
      // An inline turn ends: the waiting sessions run here, in order, with no job of their own.
      gate.open('s-a');
      await vi.waitFor(() => { expect(ran.slice(3, 6)).toEqual(['s-wait-1', 's-wait-2', 's-wait-3']); });
      expect(await jobsEver()).toBe(2);
      gate.open('s-c');
      await vi.waitFor(() => { expect(ran).toContain('s-wait-4'); }, { timeout: 5000 });
    } finally {
      gate.openAll();
    }
  });

  it('hands the sessions waiting here to the queue when it closes, and each still runs once', async () => {
    const gate = gates();
    const pending = mailbox();
    const { worker, ran } = await inlineWorker({ concurrency: 2, pending, work: (sessionId) => (sessionId === 's-waiting' ? Promise.resolve() : gate.hold(sessionId)) });
    for (const sessionId of ['s-run', 's-queued']) {
      await pending.add(sessionId);
      await worker.startTurn(sessionId, `m-${sessionId}`);
    }
    await vi.waitFor(() => { expect(ran).toEqual(['s-run', 's-queued']); });
    await pending.add('s-waiting');
    await worker.startTurn('s-waiting', 'm-waiting');
    expect(await jobsEver()).toBe(1);
    const closing = worker.close();
    await vi.waitFor(async () => { expect(await jobsEver()).toBe(2); });
    expect(await resources.redis('worker').exists(sessionLockKey(prefix(), 's-waiting'))).toBe(0);
    gate.openAll();
    await closing;
    const other = await inlineWorker({ pending });
    await vi.waitFor(() => { expect([...ran, ...other.ran].filter((sessionId) => sessionId === 's-waiting')).toEqual(['s-waiting']); }, { timeout: 5000 });
    expect(await pending.has('s-waiting')).toBe(false);
  });

  it('leaves a waiting session whose lock was lost to the sweeper, which runs its turn once', async () => {
    const gate = gates();
    const pending = mailbox();
    const redis = resources.redis('worker');
    /** Whether each run of s-lost held the session's lock. */
    const locked: number[] = [];
    const work = async (sessionId: string): Promise<void> => {
      if (sessionId !== 's-lost') return gate.hold(sessionId);
      locked.push(await redis.exists(sessionLockKey(prefix(), sessionId)));
    };
    const { worker, ran } = await inlineWorker({ concurrency: 2, lockTtlMs: 400, pending, work });
    try {
      for (const sessionId of ['s-run', 's-queued']) await worker.startTurn(sessionId, `m-${sessionId}`);
      await vi.waitFor(() => { expect(ran).toEqual(['s-run', 's-queued']); });
      await pending.add('s-lost');
      await worker.startTurn('s-lost', 'm-lost');
      expect(await redis.exists(sessionLockKey(prefix(), 's-lost'))).toBe(1);
      // The lock goes while the session waits (as when Redis lost it): the heartbeat finds it gone.
      await redis.del(sessionLockKey(prefix(), 's-lost'));
      // The sweeper finds the entry without its lock and schedules the turn; the queue is full.
      await vi.waitFor(async () => { expect(await jobsEver()).toBe(2); }, { timeout: 5000 });
      expect(ran).toEqual(['s-run', 's-queued']);
      // An inline slot frees, then the queue's: the lost lease is passed over, not run without its
      // lock, and the job runs the turn.
      gate.open('s-run');
      await vi.waitFor(async () => { expect(await redis.exists(sessionLockKey(prefix(), 's-run'))).toBe(0); });
      gate.open('s-queued');
      await vi.waitFor(() => { expect(ran).toEqual(['s-run', 's-queued', 's-lost']); }, { timeout: 5000 });
      expect(await pending.has('s-lost')).toBe(false);
      await vi.waitFor(async () => { expect(await redis.zscore(inlineTurnsKey(prefix()), 's-lost')).toBeNull(); });
    } finally {
      gate.openAll();
    }
    expect(locked).toEqual([1]);
  });

  it('leaves the watch entry when a waiting session cannot be handed to the queue, and the sweeper schedules it later', async () => {
    const gate = gates();
    const pending = mailbox();
    const { worker } = await inlineWorker({ concurrency: 2, lockTtlMs: 400, pending, work: (sessionId) => (sessionId === 's-stranded' ? Promise.resolve() : gate.hold(sessionId)) });
    const redis = resources.redis('worker');
    for (const sessionId of ['s-run', 's-queued']) await worker.startTurn(sessionId, `m-${sessionId}`);
    await vi.waitFor(async () => { expect(await redis.exists(sessionLockKey(prefix(), 's-queued'))).toBe(1); });
    await pending.add('s-stranded');
    await worker.startTurn('s-stranded', 'm-stranded');
    // The queue refuses the job (as in a Redis outage on its connection) while the worker closes.
    const add = vi.spyOn(Queue.prototype, 'add').mockRejectedValue(new Error('queue unreachable'));
    const closing = worker.close();
    await vi.waitFor(async () => { expect(await redis.exists(sessionLockKey(prefix(), 's-stranded'))).toBe(0); });
    expect(await redis.zscore(inlineTurnsKey(prefix()), 's-stranded')).not.toBeNull();
    add.mockRestore();
    gate.openAll();
    await closing;
    // Another worker's sweeper finds the entry without its lock and schedules the turn once.
    const other = await inlineWorker({ lockTtlMs: 400, pending });
    await vi.waitFor(() => { expect(other.ran).toEqual(['s-stranded']); }, { timeout: 5000 });
    expect(await pending.has('s-stranded')).toBe(false);
    await vi.waitFor(async () => { expect(await redis.zscore(inlineTurnsKey(prefix()), 's-stranded')).toBeNull(); });
  });

  it('runs every turn through the queue at a concurrency of 1', async () => {
    const { worker, ran } = await inlineWorker({ concurrency: 1 });
    await worker.startTurn('s-one', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-one']); });
    expect(await jobsEver()).toBe(1);
  });

  it('schedules a job only once the message\'s accept was answered, never while it is on its way', async () => {
    const { worker, ran } = await inlineWorker({ concurrency: 1 });
    let answer: (() => void) | undefined;
    const accepted = new Promise<void>((resolve) => { answer = resolve; });
    const started = worker.startTurn('s-accept', 'm-1', accepted);
    // A job's turn could begin before the message is in the mailbox: none is added yet (an add
    // sent at once would have landed by the time the counts, a few round trips later, are read).
    expect(await jobsEver()).toBe(0);
    answer?.();
    await started;
    await vi.waitFor(() => { expect(ran).toEqual(['s-accept']); });
    expect(await jobsEver()).toBe(1);
  });

  it('hands a failed run to the queue, which runs the turn again', async () => {
    let calls = 0;
    const { worker, ran } = await inlineWorker({ work: () => { calls += 1; return calls === 1 ? Promise.reject(new Error('model down')) : Promise.resolve(); } });
    await worker.startTurn('s-fail', 'm-1');
    await vi.waitFor(() => { expect(ran).toEqual(['s-fail', 's-fail']); }, { timeout: 5000 });
    expect(await jobsEver()).toBe(1);
  });

  it('recovers the run of a process that died: another worker schedules it once the dead lock expired', async () => {
    // The dying holder: its lease is watched, then its connection is cut so no heartbeat renews it.
    const doomedRedis = resources.redis('worker');
    const doomed = createSessionLock({ redis: doomedRedis, prefix: prefix(), ttlMs: 400 });
    const { lease } = await doomed.claim('s-orphan', { watchKey: inlineTurnsKey(prefix()) });
    expect(lease).toBeDefined();
    doomedRedis.disconnect();
    const redis = resources.redis('worker');
    expect(await redis.zscore(inlineTurnsKey(prefix()), 's-orphan')).not.toBeNull();
    const { ran } = await inlineWorker({ lockTtlMs: 400 });
    await vi.waitFor(() => { expect(ran).toEqual(['s-orphan']); }, { timeout: 5000 });
    await vi.waitFor(async () => { expect(await redis.zcard(inlineTurnsKey(prefix()))).toBe(0); });
    expect(await jobsEver()).toBe(1);
  });

  it('does not take a live holder for dead: a long run stays its own, however many sweeps pass', async () => {
    let finish: (() => void) | undefined;
    const long = new Promise<void>((resolve) => { finish = resolve; });
    const { worker, ran } = await inlineWorker({ lockTtlMs: 300, work: () => long });
    const { ran: otherRan } = await inlineWorker({ lockTtlMs: 300 });
    await worker.startTurn('s-long', 'm-1');
    const redis = resources.redis('worker');
    try {
      // Past a lifetime and several sweeps, the entry was looked at and re-armed, not taken.
      const firstScore = Number(await redis.zscore(inlineTurnsKey(prefix()), 's-long'));
      await vi.waitFor(async () => { expect(Number(await redis.zscore(inlineTurnsKey(prefix()), 's-long'))).toBeGreaterThan(firstScore); }, { timeout: 5000 });
    } finally {
      finish?.();
    }
    await vi.waitFor(async () => { expect(await redis.zcard(inlineTurnsKey(prefix()))).toBe(0); });
    expect(ran).toEqual(['s-long']);
    expect(otherRan).toEqual([]);
    expect(await jobsEver()).toBe(0);
  });
});
