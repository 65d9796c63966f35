import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { createDeliveryLedger, INLINE_INTENT_JOB_ID, deliveryLedgerKey, type LedgerBegin, type LedgerEntry } from './delivery-ledger.ts';
import { useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

describe('createDeliveryLedger', () => {
  it('records intent, then receipt; a later begin finds the receipt', async () => {
    const ledger = createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() });
    expect(await ledger.read('k')).toBeUndefined();
    const begun: LedgerBegin = await ledger.begin('k', 'job-1', false);
    expect(begun).toEqual({ kind: 'proceed', previous: 'new' });
    expect(await ledger.read('k')).toMatchObject({ state: 'sending', jobId: 'job-1', idempotencyKey: 'k', sendCalls: 1 });

    await ledger.recordReceipt('k', { providerMessageId: 'SM1' });
    expect(await ledger.begin('k', 'job-1', true)).toEqual({ kind: 'sent', receipt: { providerMessageId: 'SM1' } });
    await ledger.recordFailure('k', 'late failure');
    const entry: LedgerEntry = {
      state: 'sent',
      idempotencyKey: 'k',
      jobId: 'job-1',
      sendCalls: 1,
      receipt: { providerMessageId: 'SM1' },
    };
    expect(await ledger.read('k')).toEqual(entry);
  });

  it('reports an intent without outcome as unconfirmed, unless resending is allowed', async () => {
    const ledger = createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() });
    await ledger.begin('k', 'job-1', false);
    expect(await ledger.begin('k', 'job-1', false)).toEqual({ kind: 'unconfirmed', since: expect.any(Number) as number });
    expect((await ledger.read('k'))?.sendCalls).toBe(1);
    expect(await ledger.begin('k', 'job-1', true)).toEqual({ kind: 'proceed', previous: 'sending' });
    expect((await ledger.read('k'))?.sendCalls).toBe(2);
  });

  it('resumes an open intent only while it is still the one the caller saw', async () => {
    const ledger = createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() });
    await ledger.begin('k', 'job-1', false);
    const seen = await ledger.begin('k', 'job-2', false);
    if (seen.kind !== 'unconfirmed') throw new Error('expected an open intent');
    expect(await ledger.resume('k', 'job-2', seen.since)).toEqual({ kind: 'proceed', previous: 'sending' });
    // A second attempt that saw the same intent finds it replaced, and does not send.
    expect(await ledger.resume('k', 'job-3', seen.since)).toMatchObject({ kind: 'unconfirmed' });
    expect(await ledger.read('k')).toMatchObject({ state: 'sending', jobId: 'job-2', sendCalls: 2 });
    await ledger.recordReceipt('k', { providerMessageId: 'SM2' });
    expect(await ledger.resume('k', 'job-3', seen.since)).toEqual({ kind: 'sent', receipt: { providerMessageId: 'SM2' } });
  });

  it('carries when a dead inline attempt went silent to the next look at its intent, and forgets it with a new intent', async () => {
    const ledger = createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() });
    await ledger.markSilent('k', 1_000);
    expect(await ledger.read('k')).toBeUndefined();
    // The inline send's intent (its own script records it under this job id).
    await ledger.begin('k', INLINE_INTENT_JOB_ID, false);
    await ledger.markSilent('k', 1_700_000_000_000);
    const seen = await ledger.begin('k', 'job-2', false);
    expect(seen).toEqual({ kind: 'unconfirmed', since: expect.any(Number) as number, silentSince: 1_700_000_000_000 });
    if (seen.kind !== 'unconfirmed') throw new Error('expected an open intent');
    expect(await ledger.resume('k', 'job-2', seen.since)).toEqual({ kind: 'proceed', previous: 'sending' });
    // A late mark (a repeat, or a sweep that lost the race) does not stamp the queue job's intent.
    await ledger.markSilent('k', 1_700_000_000_000);
    expect(await ledger.begin('k', 'job-3', false)).toEqual({ kind: 'unconfirmed', since: expect.any(Number) as number });
    await ledger.recordReceipt('k', { providerMessageId: 'SM3' });
    await ledger.markSilent('k', 1_700_000_000_000);
    expect(await ledger.begin('k', 'job-4', false)).toMatchObject({ kind: 'sent' });
  });

  it('lets a recorded failure be tried again', async () => {
    const ledger = createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() });
    await ledger.begin('k', 'job-1', false);
    await ledger.recordFailure('k', '503');
    expect(await ledger.read('k')).toMatchObject({ state: 'failed', lastError: '503' });
    expect(await ledger.begin('k', 'job-1', false)).toEqual({ kind: 'proceed', previous: 'failed' });
  });

  it('expires entries after ttlMs from their last write', async () => {
    const redis = resources.redis('worker');
    const ledger = createDeliveryLedger({ redis, prefix: prefix(), ttlMs: 60_000 });
    await ledger.begin('k', 'job-1', false);
    const ttl = await redis.pttl(deliveryLedgerKey(prefix(), 'k'));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(deliveryLedgerKey(prefix(), 'k')).toMatch(new RegExp(`^${prefix()}:delivery-ledger:[0-9a-f]{64}$`));
  });
});
