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
  return new Promise<void>((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(redisUnavailable(new Error(`Redis is not ready (${redis.status}) after ${String(timeoutMs)} ms.`)));
    }, timeoutMs);
    redis.once('ready', onReady);
  });
}
