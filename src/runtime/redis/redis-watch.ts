import type { Redis } from 'ioredis';

/** The log methods {@link watchRedisConnection} uses; a pino logger fits. */
export interface RedisWatchLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * Logs when a client loses its Redis connection and when it is back, once each (not every failed
 * reconnect attempt, every 2 s at most, while Redis is away). Being a listener of the client's
 * `error` events, it also keeps ioredis from printing them as unhandled.
 *
 * @param name - Names the client in the log lines, e.g. `commands`.
 */
export function watchRedisConnection(redis: Redis, logger: RedisWatchLogger, name: string): void {
  let lost = false;
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  redis.on('reconnecting', () => {
    if (lost) return;
    lost = true;
    logger.warn({ redisClient: name, err: lastError }, 'redis: connection lost; reconnecting');
  });
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    logger.info({ redisClient: name }, 'redis: connection back');
  });
}
