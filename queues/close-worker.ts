/**
 * Closing a BullMQ worker whether or not Redis is there. A graceful close waits for the running
 * jobs and for the worker's blocking fetch to return, and while Redis is away that fetch waits in
 * the connection's offline queue for ever: the process would never stop. So a worker whose
 * connection has lost Redis is closed at once (BullMQ's `force`): its running jobs are not waited
 * for, and their locks run out so another worker takes them after Redis is back. Redis can also
 * go away while a graceful close is under way (a process told to stop as Redis goes down): then
 * the worker's connection is ended, so that what the close waits on fails instead of waiting.
 *
 * The worker's blocking connection (BullMQ's duplicate for its fetch) reconnects on its own
 * timer, and may still be waiting to reconnect after Redis came back, when the worker's own
 * connection is ready again. A graceful close disconnects it and waits for it to end, which a
 * client waiting to reconnect never does (bullmq#4656): the close would wait for ever. Such a
 * blocking connection is dropped too, at the close or when it loses Redis during it.
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
  const blocking = await blockingClientOf(worker);
  // Already waiting to reconnect: the end BullMQ's close waits for would never come.
  if (blocking?.status === 'reconnecting') dropRedis(blocking);
  const stopWatching = [client, blocking].map(dropWhenAway);
  try {
    await worker.close(false);
  } finally {
    for (const stop of stopWatching) stop();
  }
}

/** Drops `client` if it loses Redis from now on (none: nothing); returns how to stop watching it. */
function dropWhenAway(client: Redis | undefined): () => void {
  if (client === undefined) return () => undefined;
  const drop = (): void => { dropRedis(client); };
  client.once('reconnecting', drop);
  return () => { client.off('reconnecting', drop); };
}

/** The part of a BullMQ worker that holds its blocking connection (public in BullMQ 6). */
interface BlockingHolder {
  readonly backend?: { readonly blockingConnection?: { readonly client: Promise<unknown> } };
}

/**
 * The worker's blocking client, when it has one and has made it; never waits for a connection
 * still being made (its promise is read only when already settled).
 */
async function blockingClientOf(worker: Worker): Promise<Redis | undefined> {
  const pending = (worker as unknown as BlockingHolder).backend?.blockingConnection?.client;
  if (pending === undefined) return undefined;
  // Of two settled promises, the first listed wins: `undefined` only when the client is not made yet.
  const made = await Promise.race([pending, Promise.resolve(undefined)]).catch(() => undefined);
  return isIoredisClient(made) ? made : undefined;
}

function isIoredisClient(value: unknown): value is Redis {
  return typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'string' && typeof (value as { once?: unknown }).once === 'function';
}
