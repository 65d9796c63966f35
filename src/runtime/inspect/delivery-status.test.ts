import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import type { EventLogEntry } from '../session/event-log.ts';
import { createDeliveryStatusRecorder } from './delivery-status.ts';
import { createSentMessages } from './sent-messages.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

describe('delivery statuses', () => {
  it("writes a provider's status into the log of the session that sent the message, and marks a failure", async () => {
    const redis = await connect();
    const sentMessages = createSentMessages({ redis, prefix: prefix(), ttlSeconds: 60 });
    await sentMessages.remember('sms', 'SM123', { sessionId: 's1', turnId: 'turn_1', idempotencyKey: 'k1' });
    expect(await redis.ttl(`${prefix()}:sent:sms:SM123`)).toBeGreaterThan(50);
    const written: { sessionId: string; entry: EventLogEntry }[] = [];
    const failed: string[] = [];
    const record = createDeliveryStatusRecorder({
      sentMessages,
      log: { append: (sessionId, entry) => { written.push({ sessionId, entry }); return Promise.resolve('1-0'); } },
      conversations: { markDeliveryFailed: (sessionId, turnId) => { failed.push(`${sessionId}/${turnId}`); return Promise.resolve(); } },
    });
    expect(await record({ channel: 'sms', providerMessageId: 'SM123', status: 'delivered', at: '2031-01-01T00:00:00.000Z' })).toBe(true);
    expect(await record({ channel: 'sms', providerMessageId: 'SM123', status: 'undelivered', errorCode: '30003', at: '2031-01-01T00:00:01.000Z' })).toBe(true);
    expect(await record({ channel: 'whatsapp', providerMessageId: 'SM123', status: 'read', at: '2031-01-01T00:00:02.000Z' })).toBe(false);
    expect(written).toEqual([
      { sessionId: 's1', entry: { type: 'delivery_status', turnId: 'turn_1', data: { channel: 'sms', providerMessageId: 'SM123', status: 'delivered', at: '2031-01-01T00:00:00.000Z', idempotencyKey: 'k1' } } },
      { sessionId: 's1', entry: { type: 'delivery_status', turnId: 'turn_1', data: { channel: 'sms', providerMessageId: 'SM123', status: 'undelivered', errorCode: '30003', at: '2031-01-01T00:00:01.000Z', idempotencyKey: 'k1' } } },
    ]);
    expect(failed).toEqual(['s1/turn_1']);
  });
});
