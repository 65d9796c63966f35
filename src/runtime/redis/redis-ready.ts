import type { Redis } from 'ioredis';
import { redisUnavailable } from './redis-unavailable.ts';

/**
 * Resolves once `redis` is connected and ready for commands: at once when it is, else on its next
 * `ready` event (a lazy client that never connected is connected first). For clients without an
 * offline queue, whose commands fail while they are not ready.
 *
 * @param timeoutMs - How long to wait, in milliseconds.
 * @throws {SwitchboardError} `redis.unavailable` when the client is not ready within `timeoutMs`
 *   or was closed for good.
 */
export function untilRedisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end') return Promise.reject(redisUnavailable(new Error('Connection is closed.')));
  if (redis.status === 'wait') {
    // Its failure is the timeout's to report; ioredis keeps reconnecting meanwhile.
    redis.connect().catch(() => undefined);
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(redisUnavailable(new Error(`Redis is not ready (${redis.status}) after ${String(timeoutMs)} ms.`)));
    }, timeoutMs);
  });
  return Promise.race([nextReady(redis), timedOut]).finally(() => { clearTimeout(timer); });
}

/** One pending `ready` per client, shared by every waiter (hundreds of streams may wait at once). */
const pendingReady = new WeakMap<Redis, Promise<void>>();

/** Resolves on the client's next `ready` event. */
function nextReady(redis: Redis): Promise<void> {
  let pending = pendingReady.get(redis);
  if (pending === undefined) {
    pending = new Promise<void>((resolve) => {
      redis.once('ready', () => {
        pendingReady.delete(redis);
        resolve();
      });
    });
    pendingReady.set(redis, pending);
  }
  return pending;
}
