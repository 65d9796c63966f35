import { Queue, Worker } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { turnJobId } from './job-ids.ts';
import { sleep, useTestResources } from './queue-test-kit.ts';
import { createSessionLock, sessionLockKey } from './session-lock.ts';
import { createTurnQueue, createTurnWorker, TURN_QUEUE_NAME, type TurnLease } from './turn-queue.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
/** Completed jobs are kept in these tests so that they can be counted. */
const HOUR_MS = 3_600_000;

interface Run {
  readonly sessionId: string;
  readonly worker: string;
  readonly start: number;
  readonly end: number;
}

function inspector(): Queue {
  return resources.track(new Queue(TURN_QUEUE_NAME, { connection: resources.redis('producer'), prefix: prefix() }));
}

function overlaps(a: Run, b: Run): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Runs of one session that overlap in time (should be none). */
function overlappingRunsOfOneSession(runs: readonly Run[]): [Run, Run][] {
  const bySession = Map.groupBy(runs, (run) => run.sessionId);
  const found: [Run, Run][] = [];
  for (const sessionRuns of bySession.values()) {
    const sorted = [...sessionRuns].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i += 1) {
      const previous = sorted[i - 1];
      const current = sorted[i];
      if (previous !== undefined && current !== undefined && current.start < previous.end) found.push([previous, current]);
    }
  }
  return found;
}

describe('turn queue', () => {
  it('removes a turn job as it completes by default, so idle sessions keep nothing in the queue', async () => {
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const ran: string[] = [];
    resources.track(createTurnWorker({ connection: resources.redis('worker'), prefix: prefix(), process: (sessionId) => { ran.push(sessionId); return Promise.resolve(); } }));
    await turns.schedule('s-idle', 'm-1');
    await vi.waitFor(() => {
      expect(ran).toEqual(['s-idle']);
    });
    const queue = resources.track(new Queue(TURN_QUEUE_NAME, { connection: resources.redis('producer'), prefix: prefix() }));
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed', 'active', 'wait')).toEqual({ completed: 0, active: 0, wait: 0 });
    });
    expect(await queue.getJob(turnJobId('m-1'))).toBeUndefined();
  });

  it('runs 50 sessions x 5 jobs on two workers: all run, never two of one session at once, sessions in parallel', async () => {
    const runs: Run[] = [];
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    const recorder = (worker: string) => async (sessionId: string) => {
      const start = performance.now();
      await sleep(3 + Math.random() * 5);
      runs.push({ sessionId, worker, start, end: performance.now() });
    };
    for (const name of ['w1', 'w2']) {
      resources.track(
        createTurnWorker({ connection: resources.redis('worker'), prefix: prefix(), concurrency: 8, process: recorder(name) }),
      );
    }

    const schedules: Promise<void>[] = [];
    for (let job = 0; job < 5; job += 1) {
      for (let session = 0; session < 50; session += 1) schedules.push(turns.schedule(`s-${session}`, `s-${session}:m-${job}`));
    }
    await Promise.all(schedules);

    await vi.waitFor(
      () => {
        expect(runs).toHaveLength(250);
      },
      { timeout: 25_000, interval: 50 },
    );
    expect(overlappingRunsOfOneSession(runs)).toEqual([]);
    const perSession = Map.groupBy(runs, (run) => run.sessionId);
    expect(perSession.size).toBe(50);
    for (const sessionRuns of perSession.values()) expect(sessionRuns).toHaveLength(5);
    const crossSessionOverlap = runs.some((a) => runs.some((b) => a.sessionId !== b.sessionId && overlaps(a, b)));
    expect(crossSessionOverlap).toBe(true);
    expect(new Set(runs.map((run) => run.worker))).toEqual(new Set(['w1', 'w2']));
  });

  it('never runs one session on two workers at once', async () => {
    const runs: Run[] = [];
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    for (const name of ['w1', 'w2', 'w3']) {
      resources.track(
        createTurnWorker({
          connection: resources.redis('worker'),
          prefix: prefix(),
          concurrency: 4,
          process: async (sessionId) => {
            const start = performance.now();
            await sleep(40);
            runs.push({ sessionId, worker: name, start, end: performance.now() });
          },
        }),
      );
    }
    await Promise.all(Array.from({ length: 12 }, (_, i) => turns.schedule('only', `only:${i}`)));

    await vi.waitFor(() => {
      expect(runs).toHaveLength(12);
    }, { timeout: 10_000 });
    expect(overlappingRunsOfOneSession(runs)).toEqual([]);
  });

  it('does not let a long turn hold up other sessions', async () => {
    let releaseLong: () => void = () => undefined;
    const longGate = new Promise<void>((resolve) => {
      releaseLong = resolve;
    });
    const done: string[] = [];
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    resources.track(
      createTurnWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        concurrency: 2,
        process: async (sessionId) => {
          if (sessionId === 'long') await longGate;
          done.push(sessionId);
        },
      }),
    );

    await turns.schedule('long', 'long:1');
    await turns.schedule('long', 'long:2');
    await turns.schedule('long', 'long:3');
    for (let i = 0; i < 10; i += 1) await turns.schedule(`short-${i}`, `short-${i}:1`);

    await vi.waitFor(() => {
      expect(done.filter((id) => id.startsWith('short-'))).toHaveLength(10);
    }, { timeout: 10_000 });
    expect(done).not.toContain('long');

    releaseLong();
    await vi.waitFor(() => {
      expect(done.filter((id) => id === 'long')).toHaveLength(3);
    }, { timeout: 10_000 });
  });

  it('moves a busy session job to delayed without counting an attempt', async () => {
    let releaseLong: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      releaseLong = resolve;
    });
    let runs = 0;
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS, attempts: 1 }));
    resources.track(
      createTurnWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        concurrency: 2,
        busyRetryDelayMs: 10,
        process: async () => {
          runs += 1;
          if (runs === 1) await gate;
        },
      }),
    );
    await turns.schedule('s', 'first');
    await vi.waitFor(() => {
      expect(runs).toBe(1);
    });
    await turns.schedule('s', 'second');
    await sleep(300); // the second job bounces off the busy session many times meanwhile
    releaseLong();

    const queue = inspector();
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed', 'failed')).toEqual({ completed: 2, failed: 0 });
    });
    const second = await queue.getJob(turnJobId('second'));
    expect(second?.attemptsMade).toBe(1); // the run that completed; the bounces counted nothing
    expect(runs).toBe(2);
  });

  it('collapses schedules with the same key', async () => {
    const seen: string[] = [];
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    await turns.schedule('s', 'web:m-1');
    await turns.schedule('s', 'web:m-1');
    resources.track(
      createTurnWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        process: (sessionId) => {
          seen.push(sessionId);
          return Promise.resolve();
        },
      }),
    );
    const queue = inspector();
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    });
    await turns.schedule('s', 'web:m-1');
    await sleep(100);
    expect(seen).toEqual(['s']);
    expect(await queue.getJobCounts('completed', 'wait', 'delayed', 'active')).toEqual({
      completed: 1,
      wait: 0,
      delayed: 0,
      active: 0,
    });
  });

  it('hands the turn of a dead worker to another worker once the session lock has expired', async () => {
    const lockTtlMs = 1500;
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    await turns.schedule('s', 'crash:1');

    // A worker process that took the job and the session lock, then died: its job lock and its
    // session lock are never renewed.
    const doomedRedis = resources.redis('worker');
    const doomed = new Worker(TURN_QUEUE_NAME, null, { connection: doomedRedis, prefix: prefix(), lockDuration: 400 });
    const taken = await doomed.getNextJob('doomed-token');
    expect(taken.id).toBe(turnJobId('crash:1'));
    const doomedLease = await createSessionLock({ redis: doomedRedis, prefix: prefix(), ttlMs: lockTtlMs }).tryAcquire('s');
    const diedAt = performance.now();
    expect(doomedLease).toBeDefined();
    await doomed.close(true);
    doomedRedis.disconnect();

    let survivorStart = 0;
    resources.track(
      createTurnWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        lockTtlMs,
        jobLockDurationMs: 400,
        stalledIntervalMs: 200,
        busyRetryDelayMs: 20,
        process: () => {
          survivorStart = performance.now();
          return Promise.resolve();
        },
      }),
    );

    const queue = inspector();
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    }, { timeout: 15_000, interval: 50 });
    expect(survivorStart - diedAt).toBeGreaterThanOrEqual(lockTtlMs * 0.8);
    await vi.waitFor(() => {
      expect(doomedLease?.signal.aborted).toBe(true);
    });
    expect((doomedLease?.signal.reason as SwitchboardError).code).toBe('session.lock_lost');
  });

  it('tries a dead holder\'s session again once its lock has run out, not after the busy delay', async () => {
    const lockTtlMs = 1000;
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    // A holder that died: its lock is never renewed (its client is gone), and nothing releases it.
    const deadRedis = resources.redis('worker');
    const deadLease = await createSessionLock({ redis: deadRedis, prefix: prefix(), ttlMs: lockTtlMs }).tryAcquire('orphan');
    expect(deadLease).toBeDefined();
    deadRedis.disconnect();

    let runs = 0;
    resources.track(
      createTurnWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        lockTtlMs,
        // A busy session's job would otherwise wait a minute before it tries again.
        busyRetryDelayMs: 60_000,
        busyMaxRetryDelayMs: 60_000,
        process: () => {
          runs += 1;
          return Promise.resolve();
        },
      }),
    );
    await turns.schedule('orphan', 'orphan:1');

    const queue = inspector();
    // It waits, for no longer than what is left of the dead holder's lock (and a margin of 5 ms)...
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('delayed')).toEqual({ delayed: 1 });
    }, { timeout: 10_000, interval: 10 });
    const waiting = await queue.getJob(turnJobId('orphan:1'));
    expect(waiting?.delay).toBeGreaterThan(0);
    expect(waiting?.delay).toBeLessThanOrEqual(lockTtlMs + 5);
    // ...then runs once.
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    }, { timeout: 15_000, interval: 50 });
    expect(runs).toBe(1);
  });

  it('aborts a turn whose session lock is lost, fails that attempt and retries it', async () => {
    const redis = resources.redis('worker');
    const reasons: unknown[] = [];
    let runs = 0;
    const turns = resources.track(
      createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS, attempts: 2, backoffDelayMs: 10 }),
    );
    resources.track(
      createTurnWorker({
        connection: redis,
        prefix: prefix(),
        lockTtlMs: 600,
        process: async (sessionId: string, lease: TurnLease) => {
          runs += 1;
          if (runs > 1) return;
          // Someone else takes the session lock (briefly) while this turn runs.
          await redis.set(sessionLockKey(prefix(), sessionId), 'intruder', 'PX', 300);
          await new Promise((resolve) => {
            lease.signal.addEventListener('abort', resolve, { once: true });
          });
          reasons.push(lease.signal.reason);
        },
      }),
    );
    await turns.schedule('s', 'lost:1');

    const queue = inspector();
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    }, { timeout: 10_000 });
    expect(runs).toBe(2);
    expect((reasons[0] as SwitchboardError).code).toBe('session.lock_lost');
    const job = await queue.getJob(turnJobId('lost:1'));
    expect(job?.attemptsMade).toBe(2);
    expect((job?.stacktrace ?? []).join('\n')).toContain('lost');
  });

  it('rejects schedule after close', async () => {
    const turns = createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS });
    await turns.close();
    await expect(turns.schedule('s', 'k')).rejects.toMatchObject({ code: 'queue.closed' });
  });

  it('with hasWork, a job for a busy session completes at once and the holder runs again after releasing', async () => {
    const turns = resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), keepCompletedMs: HOUR_MS }));
    let pending = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    resources.track(
      createTurnWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        concurrency: 4,
        process: async () => {
          runs += 1;
          pending = 0;
          // The first run has drained the session and is still finishing when new work arrives.
          if (runs === 1) await held;
        },
        hasWork: () => Promise.resolve(pending > 0),
      }),
    );
    await turns.schedule('busy', 'first');
    await vi.waitFor(() => {
      expect(runs).toBe(1);
    });
    // Work arrives while the first job holds the session: its own job must not wait for the lock.
    pending = 1;
    await turns.schedule('busy', 'second');
    const queue = inspector();
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    });
    expect(runs).toBe(1);
    release();
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed', 'delayed')).toEqual({ completed: 2, delayed: 0 });
    });
    expect(runs).toBe(2);
    expect(pending).toBe(0);
  });
});
