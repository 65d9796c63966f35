import { describe, expect, it } from 'vitest';
import { failFastRedisOptions, serviceRedisOptions } from './redis-client.ts';

describe('serviceRedisOptions', () => {
  it('fails fast, connects lazily and reconnects 100 ms doubling to 2 s, for ever', () => {
    const options = serviceRedisOptions();
    expect(options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
    expect([1, 2, 5, 6, 1_000].map((times) => options.retryStrategy?.(times))).toEqual([100, 200, 1_600, 2_000, 2_000]);
  });
});

describe('failFastRedisOptions', () => {
  it('takes another backoff', () => {
    const options = failFastRedisOptions({ baseDelayMs: 10, maxDelayMs: 30 });
    expect(options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    expect([1, 2, 3].map((times) => options.retryStrategy?.(times))).toEqual([10, 20, 30]);
  });
});
