import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { createDeliveryFailures, type FailedDelivery } from './delivery-failures.ts';
import { useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

function failure(key: string, failedAt: string, extra: Partial<FailedDelivery> = {}): FailedDelivery {
  return {
    failedAt,
    channel: 'sms',
    destination: { channel: 'sms', address: '+15550100' },
    idempotencyKey: key,
    trace: { sessionId: 's-1', turnId: 't-1' },
    attempts: 1,
    reason: 'permanent',
    code: 'delivery.permanent',
    providerCode: '21610',
    status: 400,
    message: 'Attempt to send to unsubscribed recipient',
    ...extra,
  };
}

describe('createDeliveryFailures', () => {
  it('lists records newest first, by channel and up to a limit', async () => {
    const failures = createDeliveryFailures({ redis: resources.redis('worker'), prefix: prefix() });
    const now = Date.now();
    await failures.record(failure('k1', new Date(now - 3000).toISOString()));
    await failures.record(failure('k2', new Date(now - 1000).toISOString(), { channel: 'email' }));
    await failures.record(failure('k3', new Date(now - 2000).toISOString()));

    expect((await failures.list()).map((record) => record.idempotencyKey)).toEqual(['k2', 'k3', 'k1']);
    expect((await failures.list({ channel: 'sms' })).map((record) => record.idempotencyKey)).toEqual(['k3', 'k1']);
    expect((await failures.list({ limit: 1 })).map((record) => record.idempotencyKey)).toEqual(['k2']);
    expect((await failures.list())[1]).toEqual(failure('k3', new Date(now - 2000).toISOString()));
  });

  it('keeps one record per idempotency key, and forgets it on request', async () => {
    const failures = createDeliveryFailures({ redis: resources.redis('worker'), prefix: prefix() });
    await failures.record(failure('k1', new Date(Date.now() - 1000).toISOString(), { reason: 'exhausted', attempts: 8 }));
    await failures.record(failure('k1', new Date().toISOString(), { reason: 'stalled', attempts: 9 }));
    expect(await failures.list()).toMatchObject([{ idempotencyKey: 'k1', reason: 'stalled', attempts: 9 }]);
    await failures.forget('k1');
    expect(await failures.list()).toEqual([]);
  });

  it('keeps at most maxEntries records, younger than ttlMs, in keys that expire', async () => {
    const redis = resources.redis('worker');
    const failures = createDeliveryFailures({ redis, prefix: prefix(), maxEntries: 2, ttlMs: 60_000 });
    const now = Date.now();
    await failures.record(failure('too-old', new Date(now - 120_000).toISOString()));
    for (const [i, key] of ['k1', 'k2', 'k3'].entries()) {
      await failures.record(failure(key, new Date(now + i).toISOString()));
    }
    expect((await failures.list()).map((record) => record.idempotencyKey)).toEqual(['k3', 'k2']);
    expect(await redis.hlen(`${prefix()}:delivery-failures:data`)).toBe(2);
    const ttl = await redis.pttl(`${prefix()}:delivery-failures`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('keeps notes for a session until its next turn takes them, once', async () => {
    const redis = resources.redis('worker');
    const failures = createDeliveryFailures({ redis, prefix: prefix(), ttlMs: 60_000 });
    const note = (key: string, at: string): Parameters<typeof failures.noteForSession>[0] => ({ sessionId: 's-1', idempotencyKey: key, channel: 'slack', at, excerpt: `text of ${key}` });
    await failures.noteForSession(note('k2', '2026-01-01T10:00:02.000Z'));
    await failures.noteForSession(note('k1', '2026-01-01T10:00:01.000Z'));
    await failures.noteForSession(note('k1', '2026-01-01T10:00:01.000Z'));
    await failures.noteForSession({ ...note('k3', '2026-01-01T10:00:03.000Z'), sessionId: 's-2' });
    const ttl = await redis.pttl(`${prefix()}:delivery-failures:untold:s-1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);

    const taken = await Promise.all([failures.takeForSession('s-1'), failures.takeForSession('s-1')]);
    expect(taken.map((notes) => notes.map((one) => one.idempotencyKey)).toSorted((a, b) => b.length - a.length)).toEqual([['k1', 'k2'], []]);
    expect((await failures.takeForSession('s-2')).map((one) => one.excerpt)).toEqual(['text of k3']);
  });

  it('does not keep a record sent again after it was forgotten, and keeps a later failure of the key', async () => {
    const failures = createDeliveryFailures({ redis: resources.redis('worker'), prefix: prefix() });
    const first = failure('k1', new Date(Date.now() - 1000).toISOString());
    await failures.record(first);
    await failures.forget('k1');
    // The same record again, as a client sends a script whose answer it lost: the entry stays gone.
    await failures.record(first);
    expect(await failures.list()).toEqual([]);
    await failures.record(failure('k1', new Date(Date.now() + 1000).toISOString(), { reason: 'exhausted' }));
    expect(await failures.list()).toMatchObject([{ idempotencyKey: 'k1', reason: 'exhausted' }]);
  });

  it('does not keep a note sent again after it was taken, and keeps a later note of the key', async () => {
    const failures = createDeliveryFailures({ redis: resources.redis('worker'), prefix: prefix(), ttlMs: 60_000 });
    const note = (at: Date): Parameters<typeof failures.noteForSession>[0] => ({ sessionId: 's-1', idempotencyKey: 'k1', channel: 'slack', at: at.toISOString() });
    const first = note(new Date(Date.now() - 1000));
    await failures.noteForSession(first);
    expect((await failures.takeForSession('s-1')).map((one) => one.at)).toEqual([first.at]);
    // The same note again: the person was told already.
    await failures.noteForSession(first);
    expect(await failures.takeForSession('s-1')).toEqual([]);
    const later = note(new Date(Date.now() + 1000));
    await failures.noteForSession(later);
    expect((await failures.takeForSession('s-1')).map((one) => one.at)).toEqual([later.at]);
  });
});
