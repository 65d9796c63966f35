/**
 * A worker told to stop gracefully while a job runs, as Redis goes away: the stop ends instead of
 * waiting for Redis for ever (the job's end, which cannot be recorded, fails with the connection).
 *
 * Redis can die at any point of that; the second case places the loss exactly with a proxy: the
 * job's end is in flight when every connection is cut, and the worker's last connection attempt
 * gets as far as TCP before it is cut too (a Redis that accepts, then dies). That attempt used to
 * leave the job's end unsettled inside ioredis, and the stop waited for ever (see `drop-redis.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createInboundQueue, createInboundWorker, type InboundWorker } from '../../queues/inbound-queue.ts';
import { dropRedis } from '../../queues/drop-redis.ts';
import { redisOptions, workerRedisOptions } from '../../queues/redis-connections.ts';
import { sampleInjection } from '../../queues/queue-test-kit.ts';
import { useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const redis = useRestartableRedis();
const steadyRedis = useRedis();
let proxy: CuttingProxy | undefined;
beforeAll(async () => { proxy = await startCuttingProxy(steadyRedis()); });
afterAll(async () => { await proxy?.close(); });

const FAILURE = 'the job ends without Redis';

/** A worker on `url` whose one job runs until `end()`, then fails with {@link FAILURE}. */
async function workerWithRunningJob(url: string, prefix: string): Promise<{ worker: InboundWorker; end: () => void }> {
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => { started = resolve; });
  let end: () => void = () => undefined;
  const jobMayEnd = new Promise<void>((resolve) => { end = resolve; });
  const worker = createInboundWorker({
    connection: redisOptions(url),
    prefix,
    process: async () => {
      started();
      await jobMayEnd;
      throw new Error(FAILURE);
    },
  });
  const queue = createInboundQueue({ connection: redisOptions(url), prefix });
  await queue.enqueue(sampleInjection(`i-${prefix}`));
  await queue.close();
  await running;
  return { worker, end };
}

/** Starts `worker`'s graceful stop; the returned check says whether it has ended. */
function stop(worker: InboundWorker): { stopped: () => boolean; stopping: Promise<void> } {
  let stopped = false;
  const stopping = worker.close().then(() => { stopped = true; });
  return { stopped: () => stopped, stopping };
}

describe('a graceful stop that Redis leaves half-way', () => {
  it('ends once Redis is gone, though it began while Redis was there and a job was running', async () => {
    const { worker, end } = await workerWithRunningJob(redis().url, 'stop-race');
    const { stopped, stopping } = stop(worker);
    await redis().kill();
    end();
    await waitFor(stopped, 'the worker\'s graceful stop ends after Redis went away', 20_000, 50);
    await stopping;
  }, 40_000);

  it('ends when the job\'s end was in flight as Redis went, and the last attempt reached a dying Redis', async () => {
    if (proxy === undefined) throw new Error('not started');
    const { worker, end } = await workerWithRunningJob(proxy.url, 'stop-cut');
    const { stopped, stopping } = stop(worker);
    const cut = proxy.cutAt(FAILURE);
    end();
    await cut;
    await waitFor(stopped, 'the worker\'s graceful stop ends after the cut', 20_000, 50);
    await stopping;
    proxy.heal();
  }, 40_000);
});

describe('dropRedis', () => {
  it('fails a command that was in flight when Redis went, though the last attempt got as far as TCP', async () => {
    if (proxy === undefined) throw new Error('not started');
    const client = new Redis({ ...workerRedisOptions(), port: Number(new URL(proxy.url).port), host: '127.0.0.1' });
    client.on('error', () => undefined);
    await client.ping();
    const cut = proxy.cutAt('drop-marker');
    const inFlight = client.blpop('drop-marker', 0).then(() => 'answered', (error: unknown) => (error as Error).message);
    await cut;
    await new Promise<void>((resolve) => { client.once('reconnecting', resolve); });
    dropRedis(client);
    expect(await inFlight).toBe('Connection is closed.');
    expect(client.status).toBe('end');
    proxy.heal();
  });
});
