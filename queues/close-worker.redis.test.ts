/**
 * `closeWorker` against a real Redis and a real BullMQ worker: a graceful close ends even when the
 * worker's blocking connection is still waiting to reconnect while its own connection is ready (a
 * Redis that came back before that connection's next attempt), which BullMQ's close alone waits
 * on for ever (bullmq#4656).
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { waitFor } from '../test/support/wait-for.ts';
import { closeWorker } from './close-worker.ts';
import { workerRedisOptions } from './redis-connections.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const opened: Redis[] = [];
afterEach(() => {
  for (const client of opened.splice(0)) client.disconnect();
});

/** A worker on a connection of its own, fetching from an empty queue (its blocking fetch under way). */
async function idleWorker(): Promise<{ worker: Worker; client: Redis; blocking: Redis }> {
  const url = new URL(redisUrl());
  const client = new Redis({ ...workerRedisOptions(), host: url.hostname, port: Number(url.port) });
  opened.push(client);
  const worker = new Worker('close-probe', () => Promise.resolve(), { connection: client, prefix: prefix(), drainDelay: 5 });
  await worker.waitUntilReady();
  const blocking = (await worker.backend.blockingConnection?.client) as Redis | undefined;
  if (blocking === undefined) throw new Error('the worker has no blocking connection');
  opened.push(blocking);
  await waitFor(() => blocking.status === 'ready', 'the blocking connection is ready', 5_000, 10);
  return { worker, client, blocking };
}

/** Cuts `client`'s connection and makes it wait a minute before it tries again: Redis is there all along. */
function waitingToReconnect(client: Redis): Promise<void> {
  client.options.retryStrategy = () => 60_000;
  (client as unknown as { stream: Socket }).stream.destroy();
  return waitFor(() => client.status === 'reconnecting', 'the blocking connection waits to reconnect', 5_000, 10);
}

describe('closeWorker on a real worker', () => {
  it('ends a graceful close whose blocking connection waits to reconnect while the worker\'s own is ready', async () => {
    const { worker, client, blocking } = await idleWorker();
    await waitingToReconnect(blocking);
    expect(client.status).toBe('ready');
    const closed = closeWorker(worker, client).then(() => 'closed');
    const late = new Promise((resolve) => { setTimeout(resolve, 10_000, 'still closing').unref(); });
    expect(await Promise.race([closed, late])).toBe('closed');
    expect(blocking.status).toBe('end');
  }, 20_000);

  it('closes gracefully, and leaves no listener behind, when both connections are ready', async () => {
    const { worker, client, blocking } = await idleWorker();
    const close = vi.spyOn(worker, 'close');
    await closeWorker(worker, client);
    expect(close).toHaveBeenCalledExactlyOnceWith(false);
    expect(client.listenerCount('reconnecting')).toBe(0);
    expect(blocking.listenerCount('reconnecting')).toBe(0);
  });
});
