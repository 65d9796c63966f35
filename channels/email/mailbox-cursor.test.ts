import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLease } from '../kit/lease/lease.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { createMailboxCursor } from './mailbox-cursor.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;

beforeEach(() => { redis = new Redis(redisUrl()); });
afterEach(async () => { await redis.quit(); });

describe('the mailbox cursor', () => {
  it('moves forward within a UIDVALIDITY, starts over on a new one, and refuses a stale fence', async () => {
    const cursor = createMailboxCursor(redis, `${prefix()}:cursor`);
    const lease = createLease({ redis, key: `${prefix()}:lease`, ttlMs: 200, renewEveryMs: 50 });
    const fence = await lease.acquire();
    expect(await cursor.load()).toBeUndefined();
    await cursor.advance(fence, { uidValidity: 7, lastUid: 10 });
    await cursor.advance(fence, { uidValidity: 7, lastUid: 4 });
    expect(await cursor.load()).toEqual({ uidValidity: 7, lastUid: 10 });
    await cursor.advance(fence, { uidValidity: 8, lastUid: 2 });
    expect(await cursor.load()).toEqual({ uidValidity: 8, lastUid: 2 });

    await lease.release();
    const next = createLease({ redis, key: `${prefix()}:lease`, ttlMs: 200, renewEveryMs: 50 });
    const successor = await next.acquire();
    await expect(cursor.advance(fence, { uidValidity: 8, lastUid: 99 })).rejects.toMatchObject({ code: 'lease.stale_fence' });
    await cursor.advance(successor, { uidValidity: 8, lastUid: 3 });
    expect(await cursor.load()).toEqual({ uidValidity: 8, lastUid: 3 });
    await next.release();
  });
});
