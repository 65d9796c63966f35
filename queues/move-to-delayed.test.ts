import { Queue, Worker, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { moveToDelayed } from './move-to-delayed.ts';
import { useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

/** A job of a fresh queue, taken by a manual worker under `token`. */
async function takenJob(token: string): Promise<Job> {
  const queue = resources.track(new Queue('moves', { connection: resources.redis('producer'), prefix: prefix() }));
  await queue.add('move', { n: 1 });
  const worker = resources.track(new Worker('moves', null, { connection: resources.redis('worker'), prefix: prefix(), autorun: false }));
  // BullMQ's types promise a job; with one waiting it is there.
  return worker.getNextJob(token);
}

describe('moveToDelayed', () => {
  it('counts a move sent again (BullMQ then misses the lock) as done when the job is delayed', async () => {
    const job = await takenJob('token-1');
    await moveToDelayed(job, Date.now() + 60_000, 'token-1');
    await expect(job.moveToDelayed(Date.now() + 60_000, 'token-1')).rejects.toThrow(/lock/i);
    await moveToDelayed(job, Date.now() + 60_000, 'token-1');
    expect(await job.getState()).toBe('delayed');
  });

  it('throws when the job was not delayed', async () => {
    const job = await takenJob('token-1');
    await expect(moveToDelayed(job, Date.now() + 60_000, 'someone-else')).rejects.toThrow(/lock/i);
    expect(await job.getState()).toBe('active');
  });
});
