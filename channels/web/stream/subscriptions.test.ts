import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../../src/runtime/redis/free-port.ts';
import { createWebSubscriptions } from './subscriptions.ts';

describe('web subscriptions while Redis cannot be reached', () => {
  it('fail with redis.unavailable after one bounded wait, not a second one to undo them', async () => {
    const port = await findFreePort();
    const connection = new Redis({ port, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    connection.on('error', () => undefined);
    const subscriptions = createWebSubscriptions<string>({
      connect: () => ({ connection, owned: true }),
      decode: (message) => message,
      readyTimeoutMs: 1_000,
    });
    try {
      const started = performance.now();
      await expect(subscriptions.add('web-live:c1', () => undefined)).rejects.toMatchObject({ code: 'redis.unavailable' });
      // One wait of 1 s; the failed subscription's undoing used to wait a second one.
      expect(performance.now() - started).toBeLessThan(1_900);
    } finally {
      await subscriptions.close();
      connection.disconnect();
    }
  });
});
