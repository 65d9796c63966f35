import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createPeerMessages } from './peer-messages.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

describe('which task a peer message started', () => {
  it('keeps the first task of a message, per peer, until a task that won the enqueue claims it', async () => {
    const messages = createPeerMessages({ redis: await connect(), prefix: prefix(), ttlSeconds: 60 });
    expect(await messages.firstTask('caller', 'm-1', 'task-a')).toBe('task-a');
    expect(await messages.firstTask('caller', 'm-1', 'task-b')).toBe('task-a');
    expect(await messages.firstTask('other', 'm-1', 'task-c')).toBe('task-c');
    await messages.claim('caller', 'm-1', 'task-b');
    expect(await messages.firstTask('caller', 'm-1', 'task-d')).toBe('task-b');
  });

  it('forgets a message after its time', async () => {
    const redis = await connect();
    const messages = createPeerMessages({ redis, prefix: prefix(), ttlSeconds: 60 });
    await messages.firstTask('caller', 'm-2', 'task-a');
    const ttl = await redis.ttl(`${prefix()}:a2a:msg:caller:m-2`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });
});
