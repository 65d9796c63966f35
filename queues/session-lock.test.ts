import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { useTestResources } from './queue-test-kit.ts';
import { createSessionLock, sessionLockKey, type SessionLease } from './session-lock.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

/**
 * Counts the heartbeats sent on `redis`: the scripts run with more than one key, or with one key
 * and a TTL as first argument (a heartbeat names the TTL first, acquire and release a token). Each
 * entry is the number of locks the heartbeat renewed.
 */
function heartbeatsOn(redis: Redis, ttlMs: number): number[] {
  const beats: number[] = [];
  const evalsha = redis.evalsha.bind(redis);
  vi.spyOn(redis, 'evalsha').mockImplementation((...args: Parameters<Redis['evalsha']>) => {
    const [, numKeys, ...rest] = args as unknown[];
    const keys = Number(numKeys);
    if (String(rest[keys]) === String(ttlMs)) beats.push(keys);
    return evalsha(...args);
  });
  return beats;
}

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
    const beats = heartbeatsOn(redis, 300);
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 300 });
    const lease = await locks.tryAcquire('long');
    // Ten heartbeats, one every fifth of the TTL: the lock has lived two TTLs on them.
    await vi.waitFor(() => {
      expect(beats.length).toBeGreaterThanOrEqual(10);
    }, { timeout: 10_000 });
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

  it('has given the lease up by the time Redis lets another holder in', async () => {
    const holderRedis = resources.redis('worker');
    const lease = await createSessionLock({ redis: holderRedis, prefix: prefix(), ttlMs: 500 }).tryAcquire('handover');
    // The holder's heartbeats stop reaching Redis (as when its event loop stalls or Redis is cut off).
    holderRedis.disconnect();
    const rival = createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 500 });
    let taken: SessionLease | undefined;
    let holderAbortedWhenTaken: boolean | undefined;
    await vi.waitFor(async () => {
      taken = await rival.tryAcquire('handover');
      holderAbortedWhenTaken = lease?.signal.aborted;
      expect(taken).toBeDefined();
    }, { timeout: 10_000, interval: 5 });
    expect(holderAbortedWhenTaken).toBe(true);
    await taken?.release();
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
    const redis = resources.redis('worker');
    const beats = heartbeatsOn(redis, 300);
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 300 });
    const lease = await locks.tryAcquire('quiet');
    const other = await locks.tryAcquire('still-held');
    await lease?.release();
    // The lease still held beats on for two TTLs, long past the released one's expiry.
    await vi.waitFor(() => {
      expect(beats.length).toBeGreaterThanOrEqual(10);
    }, { timeout: 10_000 });
    expect(lease?.signal.aborted).toBe(false);
    expect(other?.signal.aborted).toBe(false);
    await other?.release();
  });

  it('renews every lock it holds with one command per heartbeat, and beats not at all while it holds none', async () => {
    const redis = resources.redis('worker');
    const beats = heartbeatsOn(redis, 400);
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 400 });
    const leases = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => locks.tryAcquire(`many-${id}`)));
    await vi.waitFor(() => {
      expect(beats.filter((count) => count === 5).length).toBeGreaterThanOrEqual(10);
    }, { timeout: 10_000 });
    // Every heartbeat carried all five locks: none was sent for one lock alone.
    expect(beats.every((count) => count === 5)).toBe(true);
    for (const lease of leases) expect(lease?.signal.aborted).toBe(false);
    const ttls = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => redis.pttl(sessionLockKey(prefix(), `many-${id}`))));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(0);

    for (const lease of leases) await lease?.release();
    const sent = beats.length;
    // Another instance, still holding a lock, beats ten times meanwhile (two TTLs); this one, holding none, stays quiet.
    const clockRedis = resources.redis('worker');
    const clockBeats = heartbeatsOn(clockRedis, 400);
    const clock = await createSessionLock({ redis: clockRedis, prefix: prefix(), ttlMs: 400 }).tryAcquire('clock');
    await vi.waitFor(() => {
      expect(clockBeats.length).toBeGreaterThanOrEqual(10);
    }, { timeout: 10_000 });
    expect(beats.length).toBe(sent);
    await clock?.release();
  });

  it('says how long the holder\'s lock still lives when the session is taken', async () => {
    const locks = createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 2000 });
    const rival = createSessionLock({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 2000 });
    const held = await locks.claim('claimed');
    expect(held.lease).toBeDefined();
    const refused = await rival.claim('claimed');
    expect(refused.lease).toBeUndefined();
    expect(refused.heldForMs).toBeGreaterThan(0);
    expect(refused.heldForMs).toBeLessThanOrEqual(2000);
    await held.lease?.release();
    const taken = await rival.claim('claimed');
    expect(taken.lease).toBeDefined();
    expect(taken.heldForMs).toBeUndefined();
    await taken.lease?.release();
  });

  it('rejects a non-positive TTL', () => {
    expect(() => createSessionLock({ redis: resources.redis('worker'), ttlMs: 0 })).toThrow(SwitchboardError);
  });

  it('releases and looks at the work in one command: the watch entry goes only when nothing waits and nobody else holds the lock', async () => {
    const redis = resources.redis('worker');
    const locks = createSessionLock({ redis, prefix: prefix() });
    const watchKey = `${prefix()}:watched`;
    const work = (sessionId: string): readonly [string, string] => [`${prefix()}:${sessionId}:turn`, `${prefix()}:${sessionId}:pending`];
    const claimed = async (sessionId: string): Promise<SessionLease> => {
      const { lease } = await locks.claim(sessionId, { watchKey });
      if (lease === undefined) throw new Error(`${sessionId} is held`);
      return lease;
    };

    const idle = await claimed('s-idle');
    expect(await idle.releaseAndLook({ watchKey, workKeys: work('s-idle') })).toEqual({ released: true, maybeWork: false });
    expect(await redis.zscore(watchKey, 's-idle')).toBeNull();

    const busy = await claimed('s-busy');
    await redis.rpush(work('s-busy')[1], 'a message');
    expect(await busy.releaseAndLook({ watchKey, workKeys: work('s-busy') })).toEqual({ released: true, maybeWork: true });
    expect(await redis.zscore(watchKey, 's-busy')).not.toBeNull();
    expect(await redis.exists(sessionLockKey(prefix(), 's-busy'))).toBe(0);

    // A lease whose lock another holder took meanwhile leaves that holder's entry alone.
    const lost = await claimed('s-lost');
    await redis.set(sessionLockKey(prefix(), 's-lost'), 'another-holder');
    expect(await lost.releaseAndLook({ watchKey, workKeys: work('s-lost') })).toEqual({ released: false, maybeWork: false });
    expect(await redis.zscore(watchKey, 's-lost')).not.toBeNull();
    expect(await redis.get(sessionLockKey(prefix(), 's-lost'))).toBe('another-holder');
  });

  it('stops renewing a lock a script let go of, and its release then sends nothing', async () => {
    const redis = resources.redis('worker');
    const beats = heartbeatsOn(redis, 300);
    const scriptsRun = (): number => (redis as unknown as { evalsha: { mock: { calls: unknown[] } } }).evalsha.mock.calls.length;
    const locks = createSessionLock({ redis, prefix: prefix(), ttlMs: 300 });
    const lease = await locks.tryAcquire('let-go');
    const other = await locks.tryAcquire('let-go-other');
    if (lease === undefined || other === undefined) throw new Error('not acquired');
    const held = lease.heldLock(`${prefix()}:inline-turns`);
    expect(held).toMatchObject({ key: sessionLockKey(prefix(), 'let-go'), token: lease.token, watchKey: `${prefix()}:inline-turns` });
    // The turn's last script deleted the lock (it held our token) and says so.
    await redis.del(held.key);
    held.letGo();
    const scripts = scriptsRun();
    expect(await lease.releaseAndLook({ watchKey: `${prefix()}:inline-turns`, workKeys: [`${prefix()}:t`] })).toEqual({ released: true, maybeWork: false });
    expect(await lease.release()).toBe(true);
    // Nothing went to Redis for it, and the heartbeats that follow carry the other lock only.
    expect(scriptsRun()).toBe(scripts);
    const before = beats.length;
    await vi.waitFor(() => { expect(beats.length).toBeGreaterThanOrEqual(before + 5); }, { timeout: 10_000 });
    expect(beats.slice(before).every((count) => count === 1)).toBe(true);
    expect(lease.signal.aborted).toBe(false);
    expect(other.signal.aborted).toBe(false);
    await other.release();
  });
});
