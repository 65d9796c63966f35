import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { createManualClock } from '../../../test/kit/manual-clock.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { createLease } from './lease.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

function lostReason(signal: AbortSignal): SwitchboardError {
  const reason: unknown = signal.reason;
  if (!(reason instanceof SwitchboardError)) throw new Error(`not a SwitchboardError: ${String(reason)}`);
  return reason;
}

describe('createLease: losing the lease', () => {
  it('aborts the fence with lease.lost when a renewal finds the lease taken by someone else', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const lease = createLease({ redis, key, ttlMs: 600 });
    const fence = await lease.acquire();
    await redis.set(key, '99:someone-else', 'PX', 5000);

    await vi.waitFor(() => { expect(fence.signal.aborted).toBe(true); });
    const reason = lostReason(fence.signal);
    expect(reason.code).toBe('lease.lost');
    expect(reason.retryable).toBe(true);
    expect(reason.details).toMatchObject({ key, token: fence.token });
    expect(await lease.release()).toBe(false);
    expect(await redis.get(key)).toBe('99:someone-else');
  });

  it('aborts the fence when the lease expired under the holder', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const lease = createLease({ redis, key, ttlMs: 600 });
    const fence = await lease.acquire();
    await redis.del(key);
    await vi.waitFor(() => { expect(fence.signal.aborted).toBe(true); });
    expect(lostReason(fence.signal).message).toMatch(/expired or another holder took it/);
  });

  it('aborts the fence once no renewal has reached Redis for a whole TTL', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const clock = createManualClock();
    const errors: SwitchboardError[] = [];
    const lease = createLease({ redis, key, ttlMs: 3000, clock, onError: (error) => errors.push(error) });
    const fence = await lease.acquire();
    redis.disconnect();

    clock.advance(2999);
    await vi.waitFor(() => { expect(errors.length).toBeGreaterThan(0); });
    expect(fence.signal.aborted).toBe(false);
    clock.advance(1);
    expect(fence.signal.aborted).toBe(true);
    expect(lostReason(fence.signal).message).toMatch(/no renewal reached Redis within 3000 ms/);
    expect(errors[0]?.retryable).toBe(true);
  });

  it('can be acquired again after a loss, with a higher token', async () => {
    const redis = await connect();
    const key = `${prefix()}:lease`;
    const lease = createLease({ redis, key, ttlMs: 600, pollEveryMs: 50 });
    const first = await lease.acquire();
    await expect(lease.acquire()).rejects.toMatchObject({ code: 'internal' });
    await redis.del(key);
    await vi.waitFor(() => { expect(first.signal.aborted).toBe(true); });
    const second = await lease.acquire();
    expect(second.token).toBe(first.token + 1);
    await lease.release();
  });
});
