/**
 * Closing a BullMQ worker whether or not Redis is there. A graceful close waits for the running
 * jobs and for the worker's blocking fetch to return, and while Redis is away that fetch waits in
 * the connection's offline queue for ever: the process would never stop. So a worker whose
 * connection is not ready is closed at once (BullMQ's `force`): its running jobs are not waited
 * for, and their locks run out so another worker takes them after Redis is back.
 */
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';

/** Closes `worker`: gracefully while `client` (its connection) is ready, at once when it is not. */
export async function closeWorker(worker: Worker, client: Redis): Promise<void> {
  await worker.close(client.status !== 'ready');
}
