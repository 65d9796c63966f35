import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { openProducerQueue } from './producer-queue.ts';
import { useTestResources } from './queue-test-kit.ts';
import { producerRedisOptions } from './redis-connections.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

/** A port of 127.0.0.1 that nothing listens on (the OS handed it out, and it was let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

describe('openProducerQueue', () => {
  it('opens the queue under the given prefix with the short event stream, and leaves the connection open on close', async () => {
    const redis = resources.redis('producer');
    const queue = resources.track(openProducerQueue<{ n: number }>('jobs', { connection: redis, prefix: prefix() }));

    await queue.add('job', { n: 1 }, { jobId: 'j1' });

    expect(queue.name).toBe('jobs');
    expect(queue.qualifiedName).toBe(`${prefix()}:jobs`);
    expect(await redis.hget(`${prefix()}:jobs:j1`, 'data')).toBe('{"n":1}');
    expect((await queue.getMeta()).maxLenEvents).toBe(500);
    await queue.close();
    expect(await redis.ping()).toBe('PONG');
  });

  it('takes the connection errors of an unreachable Redis without throwing or printing them', async () => {
    const client = new Redis(producerRedisOptions({ host: '127.0.0.1', port: await closedPort() }));
    resources.track({
      close() {
        client.disconnect();
        return Promise.resolve();
      },
    });
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let connectionErrors = 0;
      client.on('error', () => {
        connectionErrors += 1;
      });
      const queue = openProducerQueue('jobs', { connection: client, prefix: prefix() });

      await vi.waitFor(() => {
        expect(connectionErrors).toBeGreaterThanOrEqual(3);
      }, { timeout: 5_000 });
      expect(printed).not.toHaveBeenCalled();
      expect(queue.emit('error', new Error('connection lost'))).toBe(true);
      expect(printed).not.toHaveBeenCalled();
      client.disconnect();
      await queue.close();
    } finally {
      printed.mockRestore();
    }
  });
});
