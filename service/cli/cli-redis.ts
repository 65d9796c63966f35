/**
 * The Redis a CLI command (`invite`, `approvals`, `doctor`) works on: the server named by
 * `REDIS_URL`, or else the private Redis of the service running from this folder, found through
 * the address file in its data folder. Only `start` starts a private Redis: a second server on the
 * same data would be refused (and could not see what the service writes anyway).
 */
import type { Redis } from 'ioredis';
import type { RedisEnv } from '../../src/config/env-types.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { findRunningEmbeddedRedis } from '../../src/runtime/redis/embedded-redis-address.ts';
import { createRedisClient } from '../../src/runtime/redis/redis-client.ts';
import { redisAddress } from '../../src/runtime/redis/redis-target.ts';

/** The Redis a command will use, and how to name it in messages. */
export interface CliRedisTarget {
  /** URL to connect to (may hold a password: never print it). */
  readonly url: string;
  /** Where it came from, for messages: `REDIS_URL` or `the service's private Redis`. */
  readonly name: string;
  /** `host:port` of each node, comma separated, for messages (no password). */
  readonly address: string;
}

/**
 * Finds the Redis for a CLI command: `REDIS_URL` when set, else the private Redis of the running
 * service whose data is in `redis.dataDir`.
 *
 * @throws {SwitchboardError} `redis.unavailable`, in one line saying to start the service or set
 *   `REDIS_URL`, when `REDIS_URL` is unset and no service runs there (a stale address file counts
 *   as none).
 */
export async function findCliRedis(redis: RedisEnv): Promise<CliRedisTarget> {
  if (redis.mode === 'external') {
    const address = redisAddress(redis.url);
    return { url: redis.url, name: 'REDIS_URL', address };
  }
  const running = await findRunningEmbeddedRedis(redis.dataDir);
  if (running === undefined) {
    throw new SwitchboardError(
      'redis.unavailable',
      `No switchboard service is running with its Redis in ${redis.dataDir}: start it first (npm start) from this folder, ` +
        'or set REDIS_URL to the Redis of a running service.',
      { details: { dataDir: redis.dataDir } },
    );
  }
  return { url: running.url, name: "the service's private Redis", address: `${running.host}:${running.port}` };
}

/**
 * Opens a client on `target` and waits until it is connected. It does not reconnect, and its
 * errors never reach the terminal as library stack traces: a failure is one `SwitchboardError`.
 * The caller closes the client (`quit()` or `disconnect()`).
 *
 * @throws {SwitchboardError} `redis.unavailable` naming the target and its address when it does
 *   not answer within 3 seconds.
 */
export async function connectCliRedis(target: CliRedisTarget): Promise<Redis> {
  const redis = createRedisClient(target.url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null });
  // The cause (ECONNREFUSED, a DNS failure) comes as an 'error' event; connect() then only says "Connection is closed.".
  let cause: unknown;
  redis.on('error', (error: unknown) => {
    cause ??= error;
  });
  try {
    await redis.connect();
    return redis;
  } catch (error) {
    redis.disconnect();
    const reason = cause ?? error;
    const why = reason instanceof Error ? reason.message : String(reason);
    throw new SwitchboardError('redis.unavailable', `${target.name} (${target.address}) does not answer: ${why}`, { cause: reason, retryable: true });
  }
}
