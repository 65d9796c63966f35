/** Opens ioredis connections for tests and closes them after each test. */
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';

/**
 * Gives a `connect()` that opens a ready connection to `redisUrl()`; every connection it opened is
 * closed after the test. Call it after `useKeyPrefix`, so connections close before keys are deleted.
 */
export function useRedisClients(redisUrl: () => string): () => Promise<Redis> {
  const opened: Redis[] = [];
  afterEach(async () => {
    await Promise.all(
      opened.splice(0).map(async (redis) => {
        await redis.quit().catch(() => undefined);
        redis.disconnect();
      }),
    );
  });
  return async () => {
    const redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
    opened.push(redis);
    await redis.connect();
    return redis;
  };
}
