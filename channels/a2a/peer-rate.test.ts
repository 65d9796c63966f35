import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createPeerRate } from './peer-rate.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

describe('the per-peer rate', () => {
  it('lets a peer make max calls per window, then answers the seconds left in it; other peers are not held back', async () => {
    const rate = createPeerRate({ redis: await connect(), prefix: prefix(), max: 2, windowMs: 60_000 });
    expect(await rate.retryAfterSeconds('flooder')).toBeUndefined();
    expect(await rate.retryAfterSeconds('flooder')).toBeUndefined();
    const wait = await rate.retryAfterSeconds('flooder');
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await rate.retryAfterSeconds('quiet')).toBeUndefined();
  });

  it('counts across processes: two counters on their own connections share one window', async () => {
    const one = createPeerRate({ redis: await connect(), prefix: prefix(), max: 1 });
    const two = createPeerRate({ redis: await connect(), prefix: prefix(), max: 1 });
    expect(await one.retryAfterSeconds('peer')).toBeUndefined();
    expect(await two.retryAfterSeconds('peer')).toBeGreaterThanOrEqual(1);
  });

  it('the window expires in Redis: nothing is kept past it', async () => {
    const redis = await connect();
    const rate = createPeerRate({ redis, prefix: prefix(), max: 5, windowMs: 5_000 });
    await rate.retryAfterSeconds('peer');
    const [key] = await redis.keys(`${prefix()}:a2a:rate:peer:*`);
    expect(await redis.pttl(key ?? '')).toBeGreaterThan(0);
  });
});
