import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { uniquePrefix, useKeyPrefix, useRedis } from './redis.ts';

const redisUrl = useRedis();

async function withClient<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(redisUrl(), { lazyConnect: true });
  await redis.connect();
  try {
    return await use(redis);
  } finally {
    await redis.quit();
  }
}

describe('useRedis', () => {
  it('gives a reachable Redis', async () => {
    expect(redisUrl()).toMatch(/^rediss?:\/\//);
    expect(await withClient((redis) => redis.ping())).toBe('PONG');
  });

  describe('when REDIS_URL is set', () => {
    beforeAll(() => {
      vi.stubEnv('REDIS_URL', redisUrl());
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });
    const outside = useRedis();

    it('uses it instead of starting a server', () => {
      expect(outside()).toBe(redisUrl());
    });
  });
});

describe('uniquePrefix', () => {
  it('is a safe, readable, fresh name', () => {
    const a = uniquePrefix('Queue: retries / backoff');
    expect(a).toMatch(/^t-queue-retries-backoff-[0-9a-f]{12}$/);
    expect(uniquePrefix('Queue: retries / backoff')).not.toBe(a);
    expect(uniquePrefix('***')).toMatch(/^t-test-[0-9a-f]{12}$/);
  });
});

describe('useKeyPrefix', () => {
  const prefix = useKeyPrefix(redisUrl);
  let previous: string | undefined;
  const bystander = uniquePrefix('bystander');

  it('names the prefix after the test', async () => {
    previous = prefix();
    expect(previous).toMatch(/^t-usekeyprefix-names-the-prefix-after-the-[0-9a-f]{12}$/);
    await withClient(async (redis) => {
      await redis.set(`${previous ?? ''}:a`, '1');
      await redis.hset(`${previous ?? ''}:b:c`, 'f', 'v');
      await redis.set(previous ?? '', 'root');
      await redis.set(`${previous ?? ''}x`, 'not under the prefix');
      await redis.set(bystander, 'kept');
    });
  });

  it('gives the next test a new prefix and cleaned up after the previous one', async () => {
    expect(prefix()).not.toBe(previous);
    const old = previous ?? '';
    await withClient(async (redis) => {
      expect(await redis.exists(`${old}:a`, `${old}:b:c`, old)).toBe(0);
      expect(await redis.get(`${old}x`)).toBe('not under the prefix');
      expect(await redis.get(bystander)).toBe('kept');
      await redis.del(`${old}x`, bystander);
    });
  });
});
