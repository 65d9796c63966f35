import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { createRedisClient, duplicateRedis, failFastRedisOptions, serviceRedisOptions } from './redis-client.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const opened: Redis[] = [];
afterEach(() => {
  for (const client of opened.splice(0)) client.disconnect();
});

/** A connected client with `serviceRedisOptions` whose socket writes are counted. */
async function countedServiceClient(): Promise<{ redis: Redis; writes: () => number }> {
  const redis = createRedisClient(redisUrl(), serviceRedisOptions());
  opened.push(redis);
  await redis.connect();
  const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
  const write = stream.write.bind(stream);
  let writes = 0;
  stream.write = (...args: unknown[]) => {
    writes += 1;
    return write(...args);
  };
  return { redis, writes: () => writes };
}

describe('serviceRedisOptions', () => {
  it('fails fast, connects lazily and reconnects 100 ms doubling to 2 s, for ever', () => {
    const options = serviceRedisOptions();
    expect(options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, enableAutoPipelining: true });
    expect([1, 2, 5, 6, 1_000].map((times) => options.retryStrategy?.(times))).toEqual([100, 200, 1_600, 2_000, 2_000]);
  });

  it('sends the commands of one tick in one socket write, each with its own reply or error', async () => {
    const { redis, writes } = await countedServiceClient();
    const key = (n: number): string => `${prefix()}:pipelined:${n}`;
    await redis.set(key(0), 'list, not a number');
    await redis.rpush(key(1), 'x');
    const before = writes();
    const replies = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, n) => redis.set(key(n + 10), String(n))),
      redis.incr(key(1)),
      redis.get(key(0)),
    ]);
    expect(writes() - before).toBe(1);
    expect(replies.slice(0, 20).every((reply) => reply.status === 'fulfilled' && reply.value === 'OK')).toBe(true);
    expect(replies[20]).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('WRONGTYPE') } });
    expect(replies[21]).toEqual({ status: 'fulfilled', value: 'list, not a number' });
    expect(await redis.mget(key(10), key(29))).toEqual(['0', '19']);
  });

  it('is turned off on a duplicate made for blocking reads, unless asked for', async () => {
    const { redis } = await countedServiceClient();
    const blocking = duplicateRedis(redis, { lazyConnect: true });
    const pipelined = duplicateRedis(redis, { lazyConnect: true, enableAutoPipelining: true });
    opened.push(blocking, pipelined);
    expect(blocking.options.enableAutoPipelining).toBe(false);
    expect(pipelined.options.enableAutoPipelining).toBe(true);
    expect(blocking.options.enableOfflineQueue).toBe(false);
  });
});

describe('failFastRedisOptions', () => {
  it('takes another backoff', () => {
    const options = failFastRedisOptions({ baseDelayMs: 10, maxDelayMs: 30 });
    expect(options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    expect([1, 2, 3].map((times) => options.retryStrategy?.(times))).toEqual([10, 20, 30]);
  });
});
