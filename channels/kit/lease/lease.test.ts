import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { createManualClock } from '../../../test/kit/manual-clock.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { createLease } from './lease.ts';
import { fenceCounterKey, readLatestToken, readLeaseHolder } from './lease-keys.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

function lostReason(signal: AbortSignal): SwitchboardError {
  const reason: unknown = signal.reason;
  if (!(reason instanceof SwitchboardError)) throw new Error(`not a SwitchboardError: ${String(reason)}`);
  return reason;
}

describe('createLease', () => {
  it('acquires with token 1, stores holder and counter, and frees the key on release', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const lease = createLease({ redis, key, ttlMs: 5000, ownerId: 'worker-a' });

    const fence = await lease.acquire();
    expect(fence.token).toBe(1);
    expect(fence.leaseKey).toBe(key);
    expect(await readLeaseHolder(redis, key)).toMatchObject({ token: 1, ownerId: 'worker-a' });
    expect(await redis.get(fenceCounterKey(key))).toBe('1');
    expect(await redis.pttl(fenceCounterKey(key))).toBe(-1);

    expect(await lease.release()).toBe(true);
    expect(await redis.exists(key)).toBe(0);
    expect(lostReason(fence.signal).code).toBe('lease.lost');
    expect(await lease.release()).toBe(false);
  });

  it('makes a second acquirer wait while the first holds, then gives it a higher token', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const first = createLease({ redis, key, ttlMs: 5000 });
    const clock = createManualClock();
    const second = createLease({ redis, key, ttlMs: 5000, pollEveryMs: 100, clock });

    const held = await first.acquire();
    let won = false;
    const waiting = second.acquire().then((fence) => {
      won = true;
      return fence;
    });
    for (let round = 0; round < 3; round += 1) {
      await vi.waitFor(() => { expect(clock.pending()).toBe(1); }); // tried, now pausing
      expect(won).toBe(false);
      clock.advance(100);
    }
    await first.release();
    await vi.waitFor(() => { expect(clock.pending()).toBeGreaterThan(0); });
    clock.advance(100);
    const fence = await waiting;
    expect(fence.token).toBeGreaterThan(held.token);
    expect((await readLeaseHolder(redis, key))?.token).toBe(fence.token);
    await second.release();
  });

  it('lets exactly one of many concurrent acquirers win; the others stop waiting on abort', async () => {
    const key = `${prefix()}:lease`;
    const clock = createManualClock();
    const controller = new AbortController();
    const leases = await Promise.all(Array.from({ length: 8 }, async () => createLease({ redis: await connect(), key, clock })));
    const results = leases.map((lease) => lease.acquire(controller.signal).then(
      (fence) => fence.token,
      (error: unknown) => error,
    ));
    // The winner runs a renewal tick and a deadline; each of the seven losers pauses once.
    await vi.waitFor(() => { expect(clock.pending()).toBe(2 + 7); });
    controller.abort(new Error('shutting down'));
    const outcomes = await Promise.all(results);
    expect(outcomes.filter((outcome) => outcome === 1)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome instanceof Error && outcome.message === 'shutting down')).toHaveLength(7);
    expect(await readLatestToken(await connect(), key)).toBe(1);
    await Promise.all(leases.map((lease) => lease.release()));
  });

  it('renews the lease so that it outlives its TTL on the lease clock', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const clock = createManualClock();
    const lease = createLease({ redis, key, ttlMs: 60_000, renewEveryMs: 20_000, clock });
    const fence = await lease.acquire();

    for (let renewal = 0; renewal < 6; renewal += 1) {
      await redis.pexpire(key, 5000);
      clock.advance(20_000);
      await vi.waitFor(async () => { expect(await redis.pttl(key)).toBeGreaterThan(50_000); });
    }
    expect(clock.now()).toBe(2 * 60_000); // twice the TTL
    expect(fence.signal.aborted).toBe(false);
    await lease.release();
  });

  it('rejects with the abort reason when acquire is cancelled before it holds', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    await redis.set(key, '7:other', 'PX', 60_000);
    const controller = new AbortController();
    const lease = createLease({ redis, key, ttlMs: 60_000 });
    const waiting = lease.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(await redis.get(key)).toBe('7:other');
  });

  it('stops waiting on abort even while Redis does not answer, and gives back a late win', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const lease = createLease({ redis: await connect(), key, ttlMs: 60_000 });
    await redis.client('PAUSE', 1500, 'ALL');
    const controller = new AbortController();
    const waiting = lease.acquire(controller.signal);
    const abortedAt = performance.now();
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(performance.now() - abortedAt).toBeLessThan(750); // well before Redis answers again
    // The ACQUIRE sent before the abort runs once Redis answers again, and is released at once.
    await vi.waitFor(async () => { expect(await readLatestToken(redis, key)).toBe(1); }, { timeout: 5000 });
    await vi.waitFor(async () => { expect(await redis.exists(key)).toBe(0); });
  });

  it('refuses settings that cannot work', async () => {
    const redis = await connect();
    expect(() => createLease({ redis, key: 'k', ttlMs: 0 })).toThrow(SwitchboardError);
    expect(() => createLease({ redis, key: 'k', ttlMs: 1000, renewEveryMs: 1000 })).toThrow(/renewEveryMs/);
  });
});
