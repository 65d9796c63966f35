import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { captureKey, createCaptureStore } from './capture-store.ts';
import { createRedactor, REDACTED } from './redact.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

describe('capture store', () => {
  it('keeps a call for the retention days, without secrets, and reads it back', async () => {
    const redis = await connect();
    const redactor = createRedactor({ secrets: ['planted-secret-0123456789'] });
    const store = createCaptureStore({ redis, prefix: prefix(), retentionDays: 2, redact: redactor.value, now: () => Date.parse('2031-01-02T03:04:05.000Z') });
    await store.save('s1', 'turn_1', 0, { request: { messages: [{ text: 'my key is planted-secret-0123456789' }], headers: { authorization: 'Bearer x' } }, response: { id: 'msg_1' } });
    const read = await store.read('s1', 'turn_1', 0);
    expect(read).toEqual({ request: { messages: [{ text: `my key is ${REDACTED}` }], headers: { authorization: REDACTED } }, response: { id: 'msg_1' }, savedAt: '2031-01-02T03:04:05.000Z' });
    const ttl = await redis.ttl(captureKey(prefix(), 's1', 'turn_1', 0));
    expect(ttl).toBeGreaterThan(2 * 86_400 - 60);
    expect(ttl).toBeLessThanOrEqual(2 * 86_400);
    expect(await store.read('s1', 'turn_1', 1)).toBeUndefined();
  });
});
