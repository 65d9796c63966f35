import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { createConversationOwners } from './conversation-owner.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

describe('conversation owners', () => {
  it('claims with an owner read earlier as with its own read, and one of two first claims wins', async () => {
    const owners = createConversationOwners({ redis: await connect(), prefix: prefix() });
    // Both read the conversation as nobody's before either claims it.
    const [readByA, readByB] = [owners.read('c1'), owners.read('c1')];
    const [byA, byB] = await Promise.allSettled([owners.claim('c1', 'b_a', readByA), owners.claim('c1', 'b_b', readByB)]);
    expect([byA.status, byB.status].sort()).toEqual(['fulfilled', 'rejected']);
    const winner = byA.status === 'fulfilled' ? 'b_a' : 'b_b';
    expect(await owners.owns('c1', winner)).toBe(true);
    // Read again later, the owner is there: the owner passes and anyone else is refused.
    await expect(owners.claim('c1', winner, owners.read('c1'))).resolves.toBeUndefined();
    await expect(owners.claim('c1', winner === 'b_a' ? 'b_b' : 'b_a', owners.read('c1'))).rejects.toMatchObject({ code: 'http.forbidden' });
  });

  it('judges by the owner it is handed, without reading it again', async () => {
    const redis = await connect();
    const owners = createConversationOwners({ redis, prefix: prefix() });
    // Redis says nobody owns c2, but the caller read b_x as its owner: b_y is refused, nothing is claimed.
    await expect(owners.claim('c2', 'b_y', Promise.resolve('b_x'))).rejects.toMatchObject({ code: 'http.forbidden' });
    expect(await owners.read('c2')).toBeNull();
  });
});
