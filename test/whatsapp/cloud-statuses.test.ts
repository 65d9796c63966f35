/**
 * The Cloud API status store in a real Redis: only further statuses are saved (sent < delivered <
 * failed < read), repeats change nothing, each message's record expires after the TTL.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCloudStatuses, DEFAULT_STATUS_TTL_MS, type CloudStatusName } from '../../channels/whatsapp/cloud/statuses.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl());
});

afterAll(() => {
  redis.disconnect();
});

/** Records `order` for one message and answers the saved status and which records were saved. */
async function play(order: readonly CloudStatusName[]): Promise<{ last: string | undefined; saved: boolean[] }> {
  const statuses = createCloudStatuses({ redis, prefix: prefix() });
  const wamid = `wamid.${order.join('-')}`;
  const saved: boolean[] = [];
  for (const status of order) saved.push(await statuses.record({ wamid, status, at: new Date().toISOString() }));
  return { last: (await statuses.get(wamid))?.status, saved };
}

describe('cloud statuses', () => {
  it('moves forward only', async () => {
    expect(await play(['sent', 'delivered', 'read'])).toEqual({ last: 'read', saved: [true, true, true] });
    expect(await play(['read', 'delivered', 'sent'])).toEqual({ last: 'read', saved: [true, false, false] });
    expect(await play(['delivered', 'delivered', 'sent'])).toEqual({ last: 'delivered', saved: [true, false, false] });
  });

  it('lets failed replace sent and delivered, but not read; nothing replaces failed but read', async () => {
    expect(await play(['sent', 'failed'])).toEqual({ last: 'failed', saved: [true, true] });
    expect(await play(['delivered', 'failed', 'delivered'])).toEqual({ last: 'failed', saved: [true, true, false] });
    expect(await play(['read', 'failed'])).toEqual({ last: 'read', saved: [true, false] });
  });

  it('keeps the whole record and expires it after the TTL (7 days by default)', async () => {
    const statuses = createCloudStatuses({ redis, prefix: prefix() });
    const record = { wamid: 'wamid.A', status: 'failed', recipient: '+16505551234', at: '2025-06-16T16:33:20.000Z', errorCode: '131026', errorTitle: 'Message undeliverable' } as const;
    await statuses.record(record);
    expect(await statuses.get('wamid.A')).toEqual(record);
    const ttl = await redis.pttl(`${prefix()}:status:wamid.A`);
    expect(ttl).toBeGreaterThan(DEFAULT_STATUS_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_STATUS_TTL_MS);
    expect(await statuses.get('wamid.unknown')).toBeUndefined();
  });
});
