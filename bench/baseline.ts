import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { LatencyTracker, type Summary } from './stats.ts';

/**
 * The baseline: the same shape of work with nothing but BullMQ: a producer adds each message to a
 * first queue, a worker moves it to a second queue, a second worker appends the answer to a Redis
 * Stream and publishes it, and a subscriber measures the latency. Two queue hops, like switchboard's
 * inbound and turns queues, and the same final write and notification as the web chat delivery.
 */
export async function runBaseline(redisUrl: string, messages: number, conversations: number): Promise<Summary> {
  const prefix = `base${Date.now().toString(36)}`;
  const opened: Redis[] = [];
  const connection = (): Redis => {
    const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
    opened.push(client);
    return client;
  };
  const producer = connection();
  const first = new Queue('hop1', { connection: producer, prefix });
  const second = new Queue('hop2', { connection: producer, prefix });
  const writer = connection();
  const w1 = new Worker('hop1', async (job) => { await second.add('m', job.data as object); }, { connection: connection(), prefix, concurrency: 8 });
  const w2 = new Worker(
    'hop2',
    async (job) => {
      const data = job.data as { conversation: string; key: string };
      await writer.xadd(`${prefix}:out:${data.conversation}`, '*', 'key', data.key);
      await writer.publish(`${prefix}:notify`, data.key);
    },
    { connection: connection(), prefix, concurrency: 32 },
  );
  const subscriber = connection();
  const tracker = new LatencyTracker(messages);
  subscriber.on('message', (_channel: string, key: string) => {
    tracker.delivered(key, performance.now());
  });
  await subscriber.subscribe(`${prefix}:notify`);
  const perConversation = Math.ceil(messages / conversations);
  tracker.started(performance.now());
  await Promise.all(
    Array.from({ length: conversations }, async (_, index) => {
      for (let message = 0; message < perConversation && index * perConversation + message < messages; message += 1) {
        const key = `c${index}.${message}`;
        await first.add('m', { conversation: `c${index}`, key }, { jobId: `in-${key.replace('.', '-')}`, removeOnComplete: true });
        tracker.accepted(key, performance.now());
      }
    }),
  );
  await tracker.done;
  const summary = tracker.summary();
  await w1.close();
  await w2.close();
  await first.close();
  await second.close();
  for (const client of opened) client.disconnect();
  return summary;
}
