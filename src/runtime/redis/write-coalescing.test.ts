import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { countSocketWrites } from '../../../test/support/socket-writes.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import { coalesceWrites } from './write-coalescing.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const opened: Redis[] = [];
afterEach(() => {
  for (const client of opened.splice(0)) client.disconnect();
});

async function connected(coalesce: boolean): Promise<Redis> {
  const client = new Redis(redisUrl(), { lazyConnect: true });
  opened.push(client);
  if (coalesce) coalesceWrites(coalesceWrites(client));
  await client.connect();
  return client;
}

/** Twenty SETs, a command that fails and a GET, all sent in one tick. */
async function oneTickOfCommands(client: Redis): Promise<PromiseSettledResult<unknown>[]> {
  const key = (n: number): string => `${prefix()}:coalesced:${n}`;
  await client.del(key(0));
  await client.rpush(key(0), 'a list');
  return Promise.allSettled([
    ...Array.from({ length: 20 }, (_, n) => client.set(key(n + 1), String(n))),
    client.incr(key(0)),
    client.get(key(20)),
  ]);
}

describe('coalesced writes', () => {
  it('sends the commands of one tick in one socket write, each keeping its own reply or error', async () => {
    const client = await connected(true);
    const writes = countSocketWrites(client);
    const replies = await oneTickOfCommands(client);
    // The DEL and the RPUSH were awaited one by one (a write each); the 22 commands after them share one.
    expect(writes).toEqual({ single: 2, vectored: 1 });
    expect(replies.slice(0, 20).every((reply) => reply.status === 'fulfilled' && reply.value === 'OK')).toBe(true);
    expect(replies[20]?.status === 'rejected' ? String(replies[20].reason) : 'no error').toContain('WRONGTYPE');
    expect(replies[21]).toEqual({ status: 'fulfilled', value: '19' });
  });

  it('sends the commands of every callback of one loop turn in one write', async () => {
    const client = await connected(true);
    const writes = countSocketWrites(client);
    const key = (n: number): string => `${prefix()}:turn:${n}`;
    // Two immediates queued together run in one check phase, each followed by its own ticks: as
    // two socket callbacks of one poll phase would, each resuming a request that sends a command.
    // (Two timers are not sure to: each reads the clock, and two reads a millisecond apart make
    // the second due a loop turn later.)
    const fromCallback = (n: number): Promise<unknown> =>
      new Promise((resolve, reject) => {
        setImmediate(() => { client.set(key(n), String(n)).then(resolve, reject); });
      });
    await Promise.all([fromCallback(1), fromCallback(2)]);
    expect(writes).toEqual({ single: 0, vectored: 1 });
    expect(await client.mget(key(1), key(2))).toEqual(['1', '2']);
  });

  it('is what a plain client does not do: a write per command', async () => {
    const client = await connected(false);
    const writes = countSocketWrites(client);
    await oneTickOfCommands(client);
    expect(writes.single).toBeGreaterThanOrEqual(20);
  });

  it('keeps coalescing on the socket of a reconnect', async () => {
    const client = await connected(true);
    const id = await client.client('ID');
    const other = await connected(false);
    await other.client('KILL', 'ID', String(id));
    await waitFor(async () => client.status === 'ready' && (await client.client('ID')) !== id, 'the reconnect');
    const writes = countSocketWrites(client);
    await oneTickOfCommands(client);
    expect(writes).toEqual({ single: 2, vectored: 1 });
  });
});
