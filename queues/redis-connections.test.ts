import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { findFreePort } from '../src/runtime/redis/free-port.ts';
import { createClusterClient } from '../src/runtime/redis/redis-client.ts';
import { useRedis } from '../test/support/redis.ts';
import { waitFor } from '../test/support/wait-for.ts';
import { redisOptionsOf } from './queue-test-kit.ts';
import {
  checkPrefix,
  closeRedis,
  DEFAULT_PREFIX,
  openRedis,
  producerRedisOptions,
  reconnectDelayMs,
  workerRedisOptions,
} from './redis-connections.ts';

const redisUrl = useRedis();

describe('reconnectDelayMs', () => {
  it('doubles from 500 ms and stops at 20 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => reconnectDelayMs(attempt))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 20_000, 20_000,
    ]);
    expect(reconnectDelayMs(10_000)).toBe(20_000);
    expect(reconnectDelayMs(0)).toBe(500);
  });

  it('takes its own base and cap', () => {
    expect(reconnectDelayMs(1, { baseDelayMs: 100, maxDelayMs: 250 })).toBe(100);
    expect(reconnectDelayMs(3, { baseDelayMs: 100, maxDelayMs: 250 })).toBe(250);
  });
});

describe('producerRedisOptions and workerRedisOptions', () => {
  it('make producers fail fast and workers wait', () => {
    const producer = producerRedisOptions({ host: 'redis.internal', port: 6380, enableOfflineQueue: true });
    expect(producer).toMatchObject({ host: 'redis.internal', port: 6380, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const worker = workerRedisOptions({ host: 'redis.internal', maxRetriesPerRequest: 3 });
    expect(worker).toMatchObject({ host: 'redis.internal', enableOfflineQueue: true, maxRetriesPerRequest: null });
    expect(worker.retryStrategy?.(4)).toBe(800);
    expect(producer.retryStrategy?.(100)).toBe(2_000);
  });

  it('refuse an ioredis keyPrefix (BullMQ takes `prefix` instead)', () => {
    expect(() => producerRedisOptions({ keyPrefix: 'sb:' })).toThrow(SwitchboardError);
    expect(() => workerRedisOptions({ keyPrefix: 'sb:' })).toThrow(/prefix/);
  });
});

describe('openRedis', () => {
  it('uses a client passed in and never closes it', async () => {
    const client = new Redis(redisOptionsOf(redisUrl()));
    const opened = openRedis(client, 'worker');
    expect(opened).toMatchObject({ client, owned: false });
    await opened.close();
    expect(await client.ping()).toBe('PONG');
    await closeRedis(client);
    expect(client.status).toBe('end');
  });

  it('opens a client from options with the role settings, and closes it', async () => {
    const opened = openRedis(redisOptionsOf(redisUrl()), 'producer');
    expect(opened.owned).toBe(true);
    expect(opened.client.options.enableOfflineQueue).toBe(false);
    await new Promise((resolve) => opened.client.once('ready', resolve));
    expect(await opened.client.ping()).toBe('PONG');
    await opened.close();
    expect(opened.client.status).toBe('end');

    const worker = openRedis(redisOptionsOf(redisUrl()), 'worker');
    expect(worker.client.options.maxRetriesPerRequest).toBeNull();
    await worker.close();
  });

  it('opens a Cluster client from cluster options, the role settings split between the cluster and its nodes', async () => {
    const nodes = [{ host: '127.0.0.1', port: 7000 }, { host: '127.0.0.1', port: 7001 }];
    const producer = openRedis({ clusterNodes: nodes, nodeOptions: { lazyConnect: true, password: 'pw' } }, 'producer');
    expect(producer.owned).toBe(true);
    expect(producer.client).toBeInstanceOf(Cluster);
    const options = (producer.client as unknown as Cluster).options;
    expect(options).toMatchObject({ enableOfflineQueue: false, lazyConnect: true, redisOptions: { password: 'pw', maxRetriesPerRequest: 0 } });
    expect(options.clusterRetryStrategy?.(4)).toBe(800);
    await producer.close();
    const worker = openRedis({ clusterNodes: nodes, nodeOptions: { lazyConnect: true } }, 'worker');
    expect((worker.client as unknown as Cluster).options).toMatchObject({ enableOfflineQueue: true, redisOptions: { maxRetriesPerRequest: null } });
    await worker.close();
  });

  it('uses a Cluster client passed in as it is', async () => {
    const client = createClusterClient([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true });
    const opened = openRedis(client, 'worker');
    expect(opened).toMatchObject({ client, owned: false });
    await opened.close();
    client.disconnect();
  });

  it('refuses a client with a keyPrefix', () => {
    const client = new Redis({ ...redisOptionsOf(redisUrl()), lazyConnect: true, keyPrefix: 'x:' });
    expect(() => openRedis(client, 'producer')).toThrow(SwitchboardError);
    client.disconnect();
  });
});

describe('closeRedis', () => {
  it('fails the commands a worker client holds while it waits to reconnect, and ends it', async () => {
    const client = new Redis(workerRedisOptions({ host: '127.0.0.1', port: await findFreePort() }));
    client.on('error', () => undefined);
    const held = client.get('k');
    await waitFor(() => client.status === 'reconnecting', 'the client waits to reconnect', 10_000, 10);
    await closeRedis(client);
    await expect(held).rejects.toThrow('Connection is closed');
    await waitFor(() => client.status === 'end', 'the client ends', 10_000, 10);
  });
});

describe('checkPrefix', () => {
  it('defaults to sb and refuses empty or blank prefixes', () => {
    expect(DEFAULT_PREFIX).toBe('sb');
    expect(checkPrefix(undefined)).toBe('sb');
    expect(checkPrefix('{sb}')).toBe('{sb}');
    expect(() => checkPrefix('')).toThrow(SwitchboardError);
    expect(() => checkPrefix('s b')).toThrow(SwitchboardError);
  });
});
