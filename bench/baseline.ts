/**
 * The baseline: the same shape of work with nothing but BullMQ. A producer adds each message to a
 * first queue, a worker moves it to a second queue, a second worker appends the answer to a Redis
 * Stream and publishes it, and a subscriber sees the answer. Two queue hops, like switchboard's
 * inbound and turns queues, and the same final write and notification as the web chat delivery.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Target } from './load.ts';
import type { LatencyTracker } from './stats.ts';

/** Connections opened by one part of the baseline, closed together. */
function connections(redisUrl: string): { open: () => Redis; closeAll: () => void } {
  const opened: Redis[] = [];
  return {
    open: () => {
      const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
      opened.push(client);
      return client;
    },
    closeAll: () => {
      for (const client of opened) client.disconnect();
    },
  };
}

/**
 * Starts the two hop workers of the baseline under `prefix` (in this process; `baseline-worker.ts`
 * runs them in a child). Resolves to what stops them.
 */
export async function startBaselineHops(redisUrl: string, prefix: string): Promise<() => Promise<void>> {
  const { open, closeAll } = connections(redisUrl);
  const second = new Queue('hop2', { connection: open(), prefix });
  const writer = open();
  const w1 = new Worker('hop1', async (job) => { await second.add('m', job.data as object, { removeOnComplete: true }); }, { connection: open(), prefix, concurrency: 8 });
  const w2 = new Worker(
    'hop2',
    async (job) => {
      const data = job.data as { conversation: string; key: string };
      await writer.xadd(`${prefix}:out:${data.conversation}`, '*', 'key', data.key);
      await writer.publish(`${prefix}:notify`, data.key);
    },
    { connection: open(), prefix, concurrency: 32 },
  );
  await Promise.all([w1.waitUntilReady(), w2.waitUntilReady()]);
  return async () => {
    await w1.close();
    await w2.close();
    await second.close();
    closeAll();
  };
}

/** The baseline's producer and subscriber under `prefix`, as a {@link Target} of `conversations` conversations (`<label><n>`). */
export async function createBaselineTarget(redisUrl: string, prefix: string, conversations: number, label = 'c'): Promise<Target> {
  const { open, closeAll } = connections(redisUrl);
  const first = new Queue('hop1', { connection: open(), prefix });
  const subscriber = open();
  let tracker: LatencyTracker | undefined;
  subscriber.on('message', (_channel: string, key: string) => {
    tracker?.delivered(key, performance.now());
  });
  await subscriber.subscribe(`${prefix}:notify`);
  return {
    conversations,
    async send(index, key) {
      await first.add('m', { conversation: `${label}${index}`, key }, { jobId: `in-${key}`, removeOnComplete: true });
    },
    track(next) {
      tracker = next;
    },
    async close() {
      await first.close();
      closeAll();
    },
  };
}
