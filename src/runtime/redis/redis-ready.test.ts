import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../../../test/support/redis.ts';
import { untilRedisReady } from './redis-ready.ts';

const redisUrl = useRedis();

describe('untilRedisReady', () => {
  it('lets many waiters share one ready listener', async () => {
    const redis = new Redis(redisUrl(), { lazyConnect: true });
    try {
      const waiting = Array.from({ length: 200 }, () => untilRedisReady(redis, 5000));
      expect(redis.listenerCount('ready')).toBe(1);
      await Promise.all(waiting);
      expect(redis.status).toBe('ready');
      expect(redis.listenerCount('ready')).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('gives up with redis.unavailable when Redis does not come', async () => {
    const redis = new Redis({ port: 1, lazyConnect: true, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    try {
      await expect(untilRedisReady(redis, 100)).rejects.toMatchObject({ code: 'redis.unavailable' });
    } finally {
      redis.disconnect();
    }
  });
});
