import { checkPrefix, openRedis, type RedisConnectionInput } from './redis-connections.ts';
import { openProducerQueue } from './producer-queue.ts';

/** Job counts of one queue, by state. */
export interface QueueCounts {
  readonly queue: string;
  readonly counts: Readonly<Record<string, number>>;
}

/** Reads job counts of named queues, for operators. */
export interface QueueStats {
  counts(): Promise<QueueCounts[]>;
  close(): Promise<void>;
}

/** The job states shown to operators. */
const STATES = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children'] as const;

/** Opens read-only handles on `queues` (names without prefix, e.g. `inbound`, `turns`). */
export function createQueueStats(options: { readonly connection: RedisConnectionInput; readonly prefix?: string; readonly queues: readonly string[] }): QueueStats {
  const prefix = checkPrefix(options.prefix);
  const redis = openRedis(options.connection, 'producer');
  const handles = options.queues.map((name) => openProducerQueue(name, { connection: redis.client, prefix }));
  return {
    async counts() {
      return Promise.all(handles.map(async (queue) => ({ queue: queue.name, counts: await queue.getJobCounts(...STATES) })));
    },
    async close() {
      await Promise.all(handles.map((queue) => queue.close()));
      await redis.close();
    },
  };
}
