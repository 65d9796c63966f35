import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { uniquePrefix, useRedis } from '../../test/support/redis.ts';
import { redisLogFollowers } from './log-follower.ts';

const redisUrl = useRedis();
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await redis.quit();
});

describe('redisLogFollowers', () => {
  it('reads what the log wrote after a point, batches included, and waits for what comes next', async () => {
    const prefix = uniquePrefix('follow');
    const log = createEventLog({ redis, prefix });
    const follow = redisLogFollowers(redis, prefix);
    const follower = follow('ses_a');
    try {
      const first = await log.append('ses_a', { type: 'turn_started', turnId: 't1', actor: 'concierge', data: { n: 1 } });
      await log.appendAll('ses_a', [
        { type: 'part', turnId: 't1', data: { partType: 'ack' } },
        { type: 'turn_settled', turnId: 't1', data: { turnState: 'complete' } },
      ]);
      const all = await follower.readAfter('0', 100, 10);
      expect(all.map((batch) => batch.entries.map((entry) => [entry.id.replace(/^\d+-\d+/, 'X'), entry.type, entry.turnId]))).toEqual([
        [['X', 'turn_started', 't1']],
        [['X', 'part', 't1'], ['X/1', 'turn_settled', 't1']],
      ]);
      expect((await follower.readAfter(first, 100, 10)).map((batch) => batch.entries.length)).toEqual([2]);
      const last = all.at(-1)?.streamId ?? '0';
      const waiting = follower.readAfter(last, 10_000, 10);
      // Written by another client while the follower's own connection blocks on the read.
      await log.append('ses_a', { type: 'injection', data: { text: 'next' } });
      const [next] = await waiting;
      expect(next?.entries.map((entry) => entry.data)).toEqual([{ text: 'next' }]);
      expect(await follower.readAfter(next?.streamId ?? '0', 20, 10)).toEqual([]);
    } finally {
      follower.close();
    }
  });

  it('shows a stream entry it cannot decode as an unreadable entry', async () => {
    const prefix = uniquePrefix('follow');
    await redis.xadd(`${prefix}:s:ses_b:log`, '*', 'type', 'injection', 'data', '{not json');
    const follower = redisLogFollowers(redis, prefix)('ses_b');
    try {
      const [batch] = await follower.readAfter('0', 100, 10);
      expect(batch?.entries[0]).toMatchObject({ type: 'unreadable', data: { fields: ['type', 'injection', 'data', '{not json'] } });
    } finally {
      follower.close();
    }
  });

  it('gives a blocked read up when closed', async () => {
    const follower = redisLogFollowers(redis, uniquePrefix('follow'))('ses_c');
    const waiting = follower.readAfter('0', 10_000, 10);
    await redis.ping();
    follower.close();
    await expect(waiting).rejects.toThrow();
  });
});
