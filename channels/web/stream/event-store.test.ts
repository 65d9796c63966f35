import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { shortDigest } from '../../../src/runtime/crypto/signing.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import type { WebChatEvent } from './chat-event.ts';
import { createWebEventStore, type LiveWebChatEvent, type StoredWebChatEvent, type Unsubscribe, type WebEventStore, type WebEventStoreOptions } from './event-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const stores: WebEventStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function makeStore(options: Partial<WebEventStoreOptions> = {}): Promise<WebEventStore> {
  const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix(), ...options });
  stores.push(store);
  return store;
}

function part(turnId: string, partId: string, text: string): WebChatEvent {
  return { type: 'part', turnId, partId, turnState: 'awaiting', part: { text, metadata: { partType: 'ack' } } };
}

/** Collects what a listener receives and waits for a number of entries. */
function collector(): { listener: (stored: StoredWebChatEvent) => void; received: StoredWebChatEvent[]; waitFor(count: number): Promise<void> } {
  const received: StoredWebChatEvent[] = [];
  const waiters: (() => void)[] = [];
  return {
    received,
    listener: (stored) => {
      received.push(stored);
      waiters.splice(0).forEach((wake) => {
        wake();
      });
    },
    async waitFor(count) {
      const deadline = Date.now() + 10_000;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`Only ${received.length} of ${count} events arrived.`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

/** A store on a connection of its own, and a collector subscribed to one of its conversations. */
interface Watched {
  readonly redis: Redis;
  readonly store: WebEventStore;
  readonly mine: ReturnType<typeof collector>;
  readonly unsubscribe: Unsubscribe;
}

async function watched(conversationId: string): Promise<Watched> {
  const redis = await connect();
  const store = await makeStore({ redis });
  const mine = collector();
  const unsubscribe = await store.subscribe(conversationId, mine.listener);
  return { redis, store, mine, unsubscribe };
}

describe('WebEventStore.append', () => {
  it('stores an idempotency key once and answers the first id again', async () => {
    const store = await makeStore();
    const first = await store.append('conv-1', part('t1', 'p1', 'Looking.'), 'key-1');
    const second = await store.append('conv-1', part('t1', 'p1', 'Looking again.'), 'key-1');
    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ id: first.id, duplicate: true });
    const stored = await store.readAfter('conv-1', '0', 10);
    expect(stored).toEqual([{ id: first.id, event: part('t1', 'p1', 'Looking.') }]);
  });

  it('keeps keys per conversation, within a window of recent events, in a list of one pair per event of the window', async () => {
    const redis = await connect();
    const store = await makeStore({ redis, idempotencyWindow: 3 });
    const first = await store.append('conv-a', part('t1', 'p1', 'a'), 'same-key');
    const other = await store.append('conv-b', part('t1', 'p1', 'b'), 'same-key');
    expect(other.duplicate).toBe(false);
    await store.append('conv-a', part('t1', 'p2', 'a2'), 'key-2');
    await store.append('conv-a', part('t1', 'p3', 'a3'), 'key-3');
    // Still among the three latest: a retry is recognised.
    expect(await store.append('conv-a', part('t1', 'p1', 'again'), 'same-key')).toEqual({ id: first.id, duplicate: true });
    await store.append('conv-a', part('t1', 'p4', 'a4'), 'key-4');
    // Past the window, the same key is a new event.
    expect((await store.append('conv-a', part('t1', 'p1', 'late'), 'same-key')).duplicate).toBe(false);
    expect(await redis.llen(`${prefix()}:web-recent:conv-a`)).toBe(6);
  });

  it('reads a dedupe list of the earlier form (one "<digest> <id>" element per event) once, then keeps the new form', async () => {
    const { redis, store, mine, unsubscribe } = await watched('upgraded');
    const first = await store.append('upgraded', part('t', 'p1', 'one'), 'k1');
    const second = await store.append('upgraded', part('t', 'p2', 'two'), 'k2');
    // The list as versions before the pair form wrote it, newest first.
    const bare = (key: string): string => shortDigest(key, 16);
    const recentKey = `${prefix()}:web-recent:upgraded`;
    await redis.del(recentKey);
    await redis.rpush(recentKey, `${bare('k2')} ${second.id}`, `${bare('k1')} ${first.id}`);
    expect(await store.append('upgraded', part('t', 'p1', 'again'), 'k1')).toEqual({ id: first.id, duplicate: true });
    const third = await store.append('upgraded', part('t', 'p3', 'three'), 'k3');
    expect(third.duplicate).toBe(false);
    expect(await redis.lrange(recentKey, 0, -1)).toEqual([`#${bare('k3')}`, third.id]);
    await mine.waitFor(3);
    expect((mine.received as LiveWebChatEvent[]).map((stored) => [stored.previousId, stored.id])).toEqual([['0', first.id], [first.id, second.id], [second.id, third.id]]);
    await unsubscribe();
  });

  it('caps the stream near maxLen', async () => {
    const redis = await connect();
    const store = await makeStore({ redis, maxLen: 10 });
    for (let index = 0; index < 300; index += 1) await store.append('capped', part('t', `p${index}`, 'x'), `k${index}`);
    expect(await redis.xlen(`${prefix()}:web:capped`)).toBeLessThan(300);
  });

  it('refuses a conversation id that is not URL-safe', async () => {
    const store = await makeStore();
    await expect(store.append('a:b', part('t', 'p', 'x'), 'k')).rejects.toThrow(/conversation id/);
  });
});

describe('WebEventStore.readAfter', () => {
  it('reads in append order, after a given id, up to a count', async () => {
    const store = await makeStore();
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await store.append('conv', part('t1', `p${index}`, `text ${index}`), `k${index}`)).id);
    const all = await store.readAfter('conv', '0', 100);
    expect(all.map((stored) => stored.id)).toEqual(ids);
    expect(all.map((stored) => (stored.event.type === 'part' ? stored.event.partId : ''))).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    const after = await store.readAfter('conv', ids[1] ?? '', 2);
    expect(after.map((stored) => stored.id)).toEqual([ids[2], ids[3]]);
    expect(await store.readAfter('conv', ids[4] ?? '', 10)).toEqual([]);
    expect(await store.readAfter('never-written', '0', 10)).toEqual([]);
  });

  it('skips entries it cannot decode', async () => {
    const redis = await connect();
    const store = await makeStore({ redis });
    await redis.xadd(`${prefix()}:web:conv`, '*', 'event', '{not json');
    await redis.xadd(`${prefix()}:web:conv`, '*', 'event', JSON.stringify({ type: 'unknown' }));
    const good = await store.append('conv', { type: 'turn', turnId: 't', turnState: 'complete' }, 'k');
    expect((await store.readAfter('conv', '0', 10)).map((stored) => stored.id)).toEqual([good.id]);
  });
});

describe('WebEventStore.subscribe', () => {
  it('delivers live appends of its conversation only, with their stream ids', async () => {
    const store = await makeStore();
    const mine = collector();
    const unsubscribe = await store.subscribe('conv', mine.listener);
    await store.append('other-conv', part('t', 'p', 'elsewhere'), 'k0');
    const first = await store.append('conv', part('t', 'p1', 'one'), 'k1');
    await store.append('conv', part('t', 'p1', 'one again'), 'k1');
    const second = await store.append('conv', { type: 'turn', turnId: 't', turnState: 'complete' }, 'k2');
    await mine.waitFor(2);
    expect(mine.received).toEqual([
      { id: first.id, previousId: '0', event: part('t', 'p1', 'one') },
      { id: second.id, previousId: first.id, event: { type: 'turn', turnId: 't', turnState: 'complete' } },
    ]);
    await unsubscribe();
  });

  it('names the stream\'s last entry as the previous one also for a stream written before its dedupe list', async () => {
    const { redis, store, mine, unsubscribe } = await watched('older');
    const first = await store.append('older', part('t', 'p1', 'one'), 'k1');
    await redis.del(`${prefix()}:web-recent:older`);
    const second = await store.append('older', part('t', 'p2', 'two'), 'k2');
    await mine.waitFor(2);
    expect(mine.received).toEqual([
      { id: first.id, previousId: '0', event: part('t', 'p1', 'one') },
      { id: second.id, previousId: first.id, event: part('t', 'p2', 'two') },
    ]);
    await unsubscribe();
  });

  it('shares one subscriber connection and stops delivering after unsubscribe', async () => {
    const redis = await connect();
    const subscriber = await connect();
    const store = await makeStore({ redis, subscriber });
    const a = collector();
    const b = collector();
    const stopA = await store.subscribe('conv', a.listener);
    const stopB = await store.subscribe('conv', b.listener);
    const channel = `${prefix()}:web-live:conv`;
    expect(await redis.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    await store.append('conv', part('t', 'p1', 'both'), 'k1');
    await Promise.all([a.waitFor(1), b.waitFor(1)]);
    await stopA();
    await stopA();
    await store.append('conv', part('t', 'p2', 'only b'), 'k2');
    await b.waitFor(2);
    expect(a.received).toHaveLength(1);
    await stopB();
    expect(await redis.pubsub('NUMSUB', channel)).toEqual([channel, 0]);
    // A subscriber passed in stays open after close().
    await store.close();
    expect(await subscriber.ping()).toBe('PONG');
  });

  it('survives a quick unsubscribe and subscribe of the same conversation', async () => {
    const store = await makeStore();
    const first = collector();
    const stop = await store.subscribe('conv', first.listener);
    const second = collector();
    const [, stopSecond] = await Promise.all([stop(), store.subscribe('conv', second.listener)]);
    await store.append('conv', part('t', 'p', 'x'), 'k');
    await second.waitFor(1);
    expect(first.received).toHaveLength(0);
    await stopSecond();
  });

  it('closes the subscriber connection it made itself', async () => {
    const redis = await connect();
    const store = createWebEventStore({ redis, keyPrefix: prefix() });
    await store.subscribe('conv', () => undefined);
    const channel = `${prefix()}:web-live:conv`;
    expect(await redis.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    await store.close();
    await expect.poll(() => redis.pubsub('NUMSUB', channel), { timeout: 10_000 }).toEqual([channel, 0]);
    await expect(store.subscribe('conv', () => undefined)).rejects.toThrow(/closed/);
  });
});
