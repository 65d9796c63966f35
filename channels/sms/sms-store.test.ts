import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { createSmsStore, type SmsStore } from './sms-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;
let store: SmsStore;

beforeEach(() => {
  redis = new Redis(redisUrl());
  store = createSmsStore({ redis, prefix: `${prefix()}:sms` });
});
afterEach(async () => { await redis.quit(); });

const SID = `SM${'a'.repeat(32)}`;
const at = '2030-01-01T10:00:00.000Z';

describe('the SMS store', () => {
  it('moves a delivery status forward only, whatever order the callbacks arrive in', async () => {
    expect(await store.recordStatus({ messageSid: SID, status: 'delivered', updatedAt: at })).toBe(true);
    expect(await store.recordStatus({ messageSid: SID, status: 'sent', updatedAt: at })).toBe(false);
    expect(await store.recordStatus({ messageSid: SID, status: 'queued', updatedAt: at })).toBe(false);
    expect(await store.recordStatus({ messageSid: SID, status: 'delivered', updatedAt: at })).toBe(false);
    expect((await store.status(SID))?.status).toBe('delivered');
    const other = `SM${'b'.repeat(32)}`;
    for (const status of ['queued', 'sent', 'undelivered']) await store.recordStatus({ messageSid: other, status, updatedAt: at, ...(status === 'undelivered' ? { errorCode: '30003' } : {}) });
    expect(await store.status(other)).toMatchObject({ status: 'undelivered', errorCode: '30003' });
  });

  it('keeps opted-out numbers until they opt in', async () => {
    expect(await store.isOptedOut('+15550100')).toBe(false);
    await store.optOut('+15550100');
    expect(await store.isOptedOut('+15550100')).toBe(true);
    await store.optIn('+15550100');
    expect(await store.isOptedOut('+15550100')).toBe(false);
  });
});
