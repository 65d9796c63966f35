import { Queue } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { useTestResources } from './queue-test-kit.ts';
import { createTurnQueue, createTurnWorker, TURN_QUEUE_NAME } from './turn-queue.ts';
import type { TurnFailure } from './turn-rescue.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

/** A turn queue whose jobs give up after two quick attempts. */
function quickQueue(): ReturnType<typeof createTurnQueue> {
  return resources.track(createTurnQueue({ connection: resources.redis('producer'), prefix: prefix(), attempts: 2, backoffDelayMs: 10 }));
}

/** Starts a worker running `process`, rescuing failed jobs on `turns` after 20 ms, at most `max` times. */
function startWorker(turns: ReturnType<typeof createTurnQueue>, process: () => Promise<void>, hasWork: () => boolean, max = 5): TurnFailure[] {
  const failures: TurnFailure[] = [];
  resources.track(createTurnWorker({
    connection: resources.redis('worker'),
    prefix: prefix(),
    process,
    hasWork: () => Promise.resolve(hasWork()),
    rescue: { queue: turns, delayMs: 20, max, onFailed: (failure) => failures.push(failure) },
  }));
  return failures;
}

async function jobsToCome(): Promise<number> {
  const queue = resources.track(new Queue(TURN_QUEUE_NAME, { connection: resources.redis('producer'), prefix: prefix() }));
  const counts = await queue.getJobCounts('wait', 'delayed', 'active', 'prioritized');
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

describe('turn rescue', () => {
  it('runs a session again once its job failed for good with its work still waiting', async () => {
    const turns = quickQueue();
    let calls = 0;
    let done = false;
    const failures = startWorker(turns, () => {
      calls += 1;
      // Both attempts of the first job fail, as through an outage; the rescue's first attempt works.
      if (calls <= 2) return Promise.reject(new Error('Redis went away'));
      done = true;
      return Promise.resolve();
    }, () => !done);
    await turns.schedule('s-outage', 'm-1');
    await vi.waitFor(() => {
      expect(done).toBe(true);
    });
    expect(calls).toBe(3);
    expect(failures).toMatchObject([{ sessionId: 's-outage', rescue: 1, gaveUp: false, error: { message: 'Redis went away' } }]);
  });

  it('stops after its last rescue and says it gave up', async () => {
    const turns = quickQueue();
    let calls = 0;
    const failures = startWorker(turns, () => {
      calls += 1;
      return Promise.reject(new Error('always fails'));
    }, () => true, 1);
    await turns.schedule('s-poison', 'm-1');
    await vi.waitFor(() => {
      expect(failures.some((failure) => failure.gaveUp)).toBe(true);
    });
    expect(failures.map(({ rescue, gaveUp }) => ({ rescue, gaveUp }))).toEqual([{ rescue: 1, gaveUp: false }, { rescue: undefined, gaveUp: true }]);
    expect(calls).toBe(4);
    expect(await jobsToCome()).toBe(0);
  });

  it('leaves a session with nothing left to do alone', async () => {
    const turns = quickQueue();
    let looked = 0;
    const failures = startWorker(turns, () => Promise.reject(new Error('failed after its work was done')), () => {
      looked += 1;
      return false;
    });
    await turns.schedule('s-done', 'm-1');
    await vi.waitFor(() => {
      expect(looked).toBe(1);
    });
    expect(await jobsToCome()).toBe(0);
    expect(failures).toEqual([]);
  });

  it('reports a session it could not look at, and schedules nothing', async () => {
    const turns = quickQueue();
    const errors: Error[] = [];
    resources.track(createTurnWorker({
      connection: resources.redis('worker'),
      prefix: prefix(),
      process: () => Promise.reject(new Error('failed')),
      hasWork: () => Promise.reject(new Error('Redis went away again')),
      onError: (error) => errors.push(error),
      rescue: { queue: turns, delayMs: 20 },
    }));
    await turns.schedule('s-unknown', 'm-1');
    await vi.waitFor(() => {
      expect(errors.map((error) => error.message)).toContain('Redis went away again');
    });
    expect(await jobsToCome()).toBe(0);
  });
});
