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

describe('conversation owners remembered by the process', () => {
  it('checks a known owner without Redis, and refuses anyone else without it', async () => {
    const redis = await connect();
    const owners = createConversationOwners({ redis, prefix: prefix() });
    await owners.claim('c3', 'b_a');
    const sent: string[] = [];
    const observe = (command: { name: string }): void => { sent.push(command.name); };
    const spied = redis as unknown as { sendCommand(command: { name: string }): unknown };
    const original = spied.sendCommand.bind(redis);
    spied.sendCommand = (command) => { observe(command); return original(command); };
    try {
      await owners.claim('c3', 'b_a', owners.read('c3'));
      expect(await owners.owns('c3', 'b_a')).toBe(true);
      await expect(owners.claim('c3', 'b_b', owners.read('c3'))).rejects.toMatchObject({ code: 'http.forbidden' });
      expect(sent).toEqual([]);
      // Nobody's is not remembered: a conversation nobody owns is read each time.
      expect(await owners.read('c4')).toBeNull();
      expect(await owners.read('c4')).toBeNull();
      expect(sent).toEqual(['get', 'get']);
    } finally {
      spied.sendCommand = original;
    }
  });

  it('learns an owner another process set, and forgets the least recently used past its size', async () => {
    const redis = await connect();
    const elsewhere = createConversationOwners({ redis, prefix: prefix() });
    const owners = createConversationOwners({ redis, prefix: prefix(), rememberedOwners: 1 });
    expect(await owners.read('c5')).toBeNull();
    await elsewhere.claim('c5', 'b_a');
    await expect(owners.claim('c5', 'b_b')).rejects.toMatchObject({ code: 'http.forbidden' });
    await elsewhere.claim('c6', 'b_c');
    expect(await owners.read('c6')).toBe('b_c');
    // c5 was forgotten for c6; Redis still says who owns it.
    await redis.set(`${prefix()}:web:owner:c5`, 'b_z');
    expect(await owners.read('c5')).toBe('b_z');
    expect(await owners.read('c6')).toBe('b_c');
  });
});
