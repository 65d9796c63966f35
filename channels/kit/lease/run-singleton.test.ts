import { describe, expect, it, vi } from 'vitest';
import type { SwitchboardError } from '../../../src/protocol/errors.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { createLease, type Fence } from './lease.ts';
import { readLeaseHolder } from './lease-keys.ts';
import { runSingleton, type SingletonListener } from './run-singleton.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const quickRetry = { baseDelayMs: 10, maxDelayMs: 40 };

/** A listener that records its starts and stops; `end()` makes the running one end by itself. */
function fakeListener(): { starts: Fence[]; stops: number; start(fence: Fence): Promise<SingletonListener>; end(): void } {
  let finish = (): void => undefined;
  const record = {
    starts: [] as Fence[],
    stops: 0,
    start(fence: Fence): Promise<SingletonListener> {
      record.starts.push(fence);
      const closed = new Promise<void>((resolve) => { finish = resolve; });
      return Promise.resolve({ closed, stop: () => { record.stops += 1; return Promise.resolve(); } });
    },
    end: () => { finish(); },
  };
  return record;
}

describe('runSingleton', () => {
  it('starts the listener once it holds the lease, and on stop() stops it and releases', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const listener = fakeListener();
    const singleton = runSingleton({ lease: createLease({ redis, key, ttlMs: 2000 }), start: (fence) => listener.start(fence) });
    await vi.waitFor(() => { expect(listener.starts).toHaveLength(1); });
    expect((await readLeaseHolder(redis, key))?.token).toBe(listener.starts[0]?.token);

    await singleton.stop();
    await singleton.stop();
    expect(listener.stops).toBe(1);
    expect(listener.starts[0]?.signal.aborted).toBe(true);
    expect(await redis.exists(key)).toBe(0);
  });

  it('stops the listener when the lease is lost and starts it again once it holds the lease anew', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const listener = fakeListener();
    const errors: SwitchboardError[] = [];
    const lease = createLease({ redis, key, ttlMs: 600, pollEveryMs: 50 });
    const singleton = runSingleton({ lease, start: (fence) => listener.start(fence), onError: (error) => errors.push(error) });
    await vi.waitFor(() => { expect(listener.starts).toHaveLength(1); });

    await redis.set(key, '1000:intruder', 'PX', 300);
    await vi.waitFor(() => { expect(listener.starts).toHaveLength(2); }, { timeout: 3000 });
    expect(listener.stops).toBe(1);
    expect(listener.starts[0]?.signal.aborted).toBe(true);
    expect(errors.map((error) => error.code)).toContain('lease.lost');
    expect(listener.starts[1]?.token).toBeGreaterThan(listener.starts[0]?.token ?? Infinity);
    await singleton.stop();
  });

  it('reports a failed start, releases, backs off and tries again', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const listener = fakeListener();
    const errors: SwitchboardError[] = [];
    let attempts = 0;
    const singleton = runSingleton({
      lease: createLease({ redis, key, ttlMs: 2000 }),
      start: (fence) => {
        attempts += 1;
        return attempts < 3 ? Promise.reject(new Error(`login failed ${attempts}`)) : listener.start(fence);
      },
      onError: (error) => errors.push(error),
      retryBackoff: quickRetry,
    });
    await vi.waitFor(() => { expect(listener.starts).toHaveLength(1); });
    expect(errors.map((error) => error.message)).toEqual(['login failed 1', 'login failed 2']);
    expect(errors.map((error) => error.code)).toEqual(['channel.unavailable', 'channel.unavailable']);
    expect(listener.starts[0]?.token).toBe(3); // each failed start released its acquisition
    await singleton.stop();
  });

  it('starts over when the listener ends by itself', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const listener = fakeListener();
    const errors: SwitchboardError[] = [];
    const singleton = runSingleton({
      lease: createLease({ redis, key, ttlMs: 2000 }),
      start: (fence) => listener.start(fence),
      onError: (error) => errors.push(error),
      retryBackoff: quickRetry,
    });
    await vi.waitFor(() => { expect(listener.starts).toHaveLength(1); });
    listener.end();
    await vi.waitFor(() => { expect(listener.starts).toHaveLength(2); });
    expect(listener.stops).toBe(1);
    expect(errors[0]?.message).toMatch(/ended by itself/);
    await singleton.stop();
  });

  it('runs one listener across two runners, handing over when the holder stops', async () => {
    const key = `${prefix()}:lease`;
    const [one, two] = [fakeListener(), fakeListener()];
    const first = runSingleton({ lease: createLease({ redis: await connect(), key, ttlMs: 2000 }), start: (fence) => one.start(fence) });
    await vi.waitFor(() => { expect(one.starts).toHaveLength(1); });
    const second = runSingleton({ lease: createLease({ redis: await connect(), key, ttlMs: 2000, pollEveryMs: 50 }), start: (fence) => two.start(fence) });
    await first.stop();
    await vi.waitFor(() => { expect(two.starts).toHaveLength(1); });
    expect(one.starts).toHaveLength(1);
    expect(two.starts[0]?.token).toBe(2);
    await second.stop();
  });
});
