/**
 * Closing a BullMQ worker whether or not Redis is there. A graceful close waits for the running
 * jobs and for the worker's blocking fetch to return, and while Redis is away that fetch waits in
 * the connection's offline queue for ever: the process would never stop. So a worker whose
 * connection has lost Redis is closed at once (BullMQ's `force`): its running jobs are not waited
 * for, and their locks run out so another worker takes them after Redis is back. Redis can also
 * go away while a graceful close is under way (a process told to stop as Redis goes down): then
 * the worker's connection is ended, so that what the close waits on fails instead of waiting.
 */
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { dropRedis } from './drop-redis.ts';

/** Connection states of a client that lost Redis (or never reached it) and is trying again. */
const AWAY = new Set(['reconnecting', 'close', 'end']);

/**
 * Closes `worker`: at once when `client` (its connection) has lost Redis, gracefully otherwise
 * (also while a first connection is still being made, which a forced close would cut mid-way).
 * When `client` loses Redis during a graceful close, it is dropped ({@link dropRedis}), which fails
 * the commands the close waits for (a running job's end, the next fetch). Does nothing when no
 * worker was started.
 */
export async function closeWorker(worker: Worker | undefined, client: Redis | undefined): Promise<void> {
  if (worker === undefined) return;
  if (client === undefined) return worker.close(false);
  if (AWAY.has(client.status)) return worker.close(true);
  const drop = (): void => { dropRedis(client); };
  client.once('reconnecting', drop);
  try {
    await worker.close(false);
  } finally {
    client.off('reconnecting', drop);
  }
}
