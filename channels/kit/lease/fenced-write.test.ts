import { describe, expect, it, vi } from 'vitest';
import type { SwitchboardError } from '../../../src/protocol/errors.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { defineFencedScript, fencedHset, fencedSet, runFencedScript } from './fenced-write.ts';
import { createLease } from './lease.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

async function refusal(write: Promise<unknown>): Promise<SwitchboardError> {
  const error: unknown = await write.then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toMatchObject({ name: 'SwitchboardError', code: 'lease.stale_fence', retryable: false });
  return error as SwitchboardError;
}

describe('fenced writes', () => {
  it('write for the current holder and refuse a holder that was replaced, leaving the value as it was', async () => {
    const redis = await connect();
    const leaseKey = `${prefix()}:lease`;
    const cursor = `${prefix()}:cursor`;
    const stale = createLease({ redis, key: leaseKey, ttlMs: 900 });
    const old = await stale.acquire();
    await fencedSet(redis, { ...old, key: cursor, value: 10 });
    expect(await redis.get(cursor)).toBe('10');

    // The old holder pauses past its TTL (simulated by its key expiring) and a new one takes over.
    await redis.del(leaseKey);
    const successor = createLease({ redis, key: leaseKey, ttlMs: 5000 });
    const current = await successor.acquire();
    expect(current.token).toBe(old.token + 1);
    await fencedSet(redis, { ...current, key: cursor, value: 20, ttlMs: 60_000 });
    expect(await redis.get(cursor)).toBe('20');
    expect(await redis.pttl(cursor)).toBeGreaterThan(50_000);

    const error = await refusal(fencedSet(redis, { leaseKey, token: old.token, key: cursor, value: 11 }));
    expect(error.details).toMatchObject({ leaseKey, token: old.token, latestToken: current.token, holderToken: current.token });
    expect(await redis.get(cursor)).toBe('20');
    await vi.waitFor(() => { expect(old.signal.aborted).toBe(true); });
    await successor.release();
  });

  it('refuse a token after its lease was released, and a token that was never issued', async () => {
    const redis = await connect();
    const leaseKey = `${prefix()}:lease`;
    const key = `${prefix()}:value`;
    await refusal(fencedSet(redis, { leaseKey, token: 1, key, value: 'x' }));
    const lease = createLease({ redis, key: leaseKey });
    const fence = await lease.acquire();
    await refusal(fencedSet(redis, { leaseKey, token: fence.token + 1, key, value: 'x' }));
    await lease.release();
    const error = await refusal(fencedSet(redis, { ...fence, key, value: 'x' }));
    expect(error.details).toMatchObject({ latestToken: fence.token, holderToken: null });
    expect(await redis.exists(key)).toBe(0);
  });

  it('fence HSET and caller-defined scripts the same way', async () => {
    const redis = await connect();
    const leaseKey = `${prefix()}:lease`;
    const state = `${prefix()}:state`;
    const lease = createLease({ redis, key: leaseKey });
    const fence = await lease.acquire();
    await fencedHset(redis, { ...fence, key: state, fields: { lastUid: 41, mailbox: 'INBOX' } });
    expect(await redis.hgetall(state)).toEqual({ lastUid: '41', mailbox: 'INBOX' });

    const advance = defineFencedScript(`
      if tonumber(redis.call('HGET', keys[1], 'lastUid') or '0') < tonumber(args[1]) then
        redis.call('HSET', keys[1], 'lastUid', args[1])
        return 1
      end
      return 0
    `);
    expect(await runFencedScript(redis, advance, fence, [state], [40])).toBe(0);
    expect(await runFencedScript(redis, advance, fence, [state], [42])).toBe(1);
    await lease.release();
    await refusal(runFencedScript(redis, advance, fence, [state], [99]));
    await refusal(fencedHset(redis, { ...fence, key: state, fields: { lastUid: 99 } }));
    expect(await redis.hget(state, 'lastUid')).toBe('42');
  });

  it('passes other Redis errors through unchanged', async () => {
    const redis = await connect();
    const leaseKey = `${prefix()}:lease`;
    const lease = createLease({ redis, key: leaseKey });
    const fence = await lease.acquire();
    const list = `${prefix()}:list`;
    await redis.rpush(list, 'a');
    await expect(fencedHset(redis, { ...fence, key: list, fields: { a: 1 } })).rejects.toThrow(/WRONGTYPE/);
    await lease.release();
  });
});
