import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { sleep, useTestResources } from './queue-test-kit.ts';
import { createSessionLock, sessionLockKey, type SessionLease } from './session-lock.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

describe('createSessionLock', () => {
  it('lets only one holder hold a session at a time, and frees it on release', async () => {
    const locks = createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 5000 });
    const rival = createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 5000 });

    const first: SessionLease | undefined = await locks.tryAcquire('s1');
    expect(first).toBeDefined();
    expect(await rival.tryAcquire('s1')).toBeUndefined();
    expect(await locks.tryAcquire('s1')).toBeUndefined();
    const other = await rival.tryAcquire('s2');
    expect(other).toBeDefined();

    expect(await first?.release()).toBe(true);
    const second = await rival.tryAcquire('s1');
    expect(second).toBeDefined();
    expect(second?.token).not.toBe(first?.token);
    await second?.release();
    await other?.release();
  });

  it('lets exactly one of many concurrent callers win', async () => {
    const clients = [resources.redis('worker'), resources.redis('worker'), resources.redis('worker')];
    const contenders = clients.map((redis) => createSessionLock({ redis, prefix: prefix(), ttlMs: 5000 }));
    const leases = await Promise.all(contenders.flatMap((locks) => Array.from({ length: 10 }, () => locks.tryAcquire('hot'))));
    const winners = leases.filter((lease) => lease !== undefined);
    expect(winners).toHaveLength(1);
    await winners[0]?.release();
  });

  it('keeps the lock alive with heartbeats for longer than its TTL', async () => {
    const redis = resources.redis('worker');
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 300 });
    const lease = await locks.tryAcquire('long');
    await sleep(1000);
    expect(lease?.signal.aborted).toBe(false);
    expect(await redis.get(sessionLockKey(prefix(), 'long'))).toBe(lease?.token);
    expect(await locks.tryAcquire('long')).toBeUndefined();
    await lease?.release();
  });

  it('aborts the signal when a heartbeat finds the lock taken by someone else', async () => {
    const redis = resources.redis('worker');
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 600 });
    const lease = await locks.tryAcquire('stolen');
    await redis.set(sessionLockKey(prefix(), 'stolen'), 'someone-else', 'PX', 5000);

    await vi.waitFor(() => {
      expect(lease?.signal.aborted).toBe(true);
    });
    const reason: unknown = lease?.signal.reason;
    expect(reason).toBeInstanceOf(SwitchboardError);
    expect((reason as SwitchboardError).code).toBe('session.lock_lost');
    expect((reason as SwitchboardError).details).toEqual({ sessionId: 'stolen' });
  });

  it('aborts the signal when the lock expired under the holder', async () => {
    const redis = resources.redis('worker');
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 600 });
    const lease = await locks.tryAcquire('expired');
    await redis.del(sessionLockKey(prefix(), 'expired'));
    await vi.waitFor(() => {
      expect(lease?.signal.aborted).toBe(true);
    });
  });

  it('aborts the signal once no heartbeat has reached Redis for a whole TTL', async () => {
    const redis = resources.redis('worker');
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 400 });
    const lease = await locks.tryAcquire('cut-off');
    redis.disconnect();
    await vi.waitFor(() => {
      expect(lease?.signal.aborted).toBe(true);
    });
    expect((lease?.signal.reason as SwitchboardError).code).toBe('session.lock_lost');
  });

  it('does nothing when a former holder releases a lock someone else now holds', async () => {
    const redis = resources.redis('worker');
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 5000 });
    const former = await locks.tryAcquire('s');
    await redis.del(sessionLockKey(prefix(), 's'));
    const current = await locks.tryAcquire('s');
    expect(current).toBeDefined();

    expect(await former?.release()).toBe(false);
    expect(await redis.get(sessionLockKey(prefix(), 's'))).toBe(current?.token);
    expect(await locks.tryAcquire('s')).toBeUndefined();
    expect(await current?.release()).toBe(true);
    expect(await former?.release()).toBe(false);
  });

  it('does not abort the signal on release', async () => {
    const locks = createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 300 });
    const lease = await locks.tryAcquire('quiet');
    await lease?.release();
    await sleep(500);
    expect(lease?.signal.aborted).toBe(false);
  });

  it('rejects a non-positive TTL', () => {
    expect(() => createSessionLock({ redis: resources.redis('worker'), ttlMs: 0 })).toThrow(SwitchboardError);
  });
});
