/**
 * Redis connections for the queues, set up the way BullMQ's production guidance asks:
 * producers (`Queue`) fail fast while Redis is unreachable, so a webhook answers with an error and
 * the channel redelivers; workers (and anything that blocks) wait for Redis forever instead of
 * dropping commands (`maxRetriesPerRequest: null`). Both reconnect with a capped exponential backoff
 * (at most 2 s apart by default).
 *
 * Every factory in `queues/` takes a {@link RedisConnectionInput}: an ioredis client the caller owns
 * (and closes), or options for a client the factory opens itself (and closes in its `close()`).
 * On a Redis Cluster, pass a `Cluster` client (typed `Redis`, see `src/runtime/redis/redis-client.ts`)
 * or {@link ClusterConnectionOptions}, and a prefix with a hash tag (`{sb}`) so that every script
 * touches one slot.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { createClusterClient, failFastRedisOptions, isRedisClient } from '../src/runtime/redis/redis-client.ts';
import type { RedisNodeAddress } from '../src/runtime/redis/redis-target.ts';
import { coalesceWrites } from '../src/runtime/redis/write-coalescing.ts';
import { dropRedis } from './drop-redis.ts';
import { REDIS_RECONNECT, reconnectDelayMs, type ReconnectBackoff } from '../src/runtime/redis/reconnect-delay.ts';
import { parseRedisTarget } from '../src/runtime/redis/redis-target.ts';

export { reconnectDelayMs, type ReconnectBackoff } from '../src/runtime/redis/reconnect-delay.ts';

/** The key prefix of every queue and every key of `queues/` when none is given: `sb`. */
export const DEFAULT_PREFIX = 'sb';

/**
 * ioredis options for a connection that a factory opens. `replyMapping` is left out: BullMQ needs
 * ioredis' default (legacy) reply shapes.
 */
export type RedisConnectionOptions = Omit<RedisOptions, 'replyMapping'>;

/** Options for a Redis Cluster connection that a factory opens. */
export interface ClusterConnectionOptions {
  /** Seed nodes of the cluster; the client discovers the others. At least one. */
  readonly clusterNodes: readonly RedisNodeAddress[];
  /** ioredis options of every node connection (credentials, TLS). Default none. */
  readonly nodeOptions?: RedisConnectionOptions;
}

/**
 * A Redis connection handed to a factory: either an ioredis client (`Redis` or `Cluster`) that the
 * caller opened and will close, or options (one server's, or a cluster's) from which the factory
 * opens a client that it closes itself.
 */
export type RedisConnectionInput = Redis | RedisConnectionOptions | ClusterConnectionOptions;

/** What a connection is used for; decides its retry behaviour. */
export type RedisRole = 'producer' | 'worker';

function rejectKeyPrefix(keyPrefix: unknown): void {
  if (typeof keyPrefix === 'string' && keyPrefix !== '') {
    throw new SwitchboardError(
      'config.invalid',
      'ioredis keyPrefix is not supported by BullMQ; pass the `prefix` option of the queue factories instead',
      { details: { keyPrefix } },
    );
  }
}

/**
 * ioredis options for a producer connection (one that adds jobs, e.g. from a webhook handler):
 * `enableOfflineQueue: false` so a command fails at once while Redis is unreachable,
 * `maxRetriesPerRequest: 0` so a command caught by a dropped connection fails with it (with 1,
 * ioredis may keep such a command until the connection is back, and the request waits that long), and
 * a capped exponential reconnect (default {@link REDIS_RECONNECT}: 100 ms doubling to 2 s, so the
 * producer is back within 2 s of Redis). Fields of `base` win except these.
 */
export function producerRedisOptions(
  base: RedisConnectionOptions = {},
  backoff: ReconnectBackoff = REDIS_RECONNECT,
): RedisConnectionOptions {
  rejectKeyPrefix(base.keyPrefix);
  return {
    ...withoutReplyMapping(base),
    ...failFastRedisOptions(backoff),
  };
}

/**
 * ioredis options for a worker connection (BullMQ `Worker`, its blocking duplicate, session locks,
 * the delivery ledger): `maxRetriesPerRequest: null` and the offline queue enabled, so commands
 * wait for Redis to come back instead of failing a running job, and a capped exponential reconnect
 * (default {@link REDIS_RECONNECT}: 100 ms doubling to 2 s, so a worker takes jobs again within 2 s
 * of Redis coming back). Fields of `base` win except these.
 */
export function workerRedisOptions(
  base: RedisConnectionOptions = {},
  backoff: ReconnectBackoff = REDIS_RECONNECT,
): RedisConnectionOptions {
  rejectKeyPrefix(base.keyPrefix);
  return {
    ...withoutReplyMapping(base),
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => reconnectDelayMs(times, backoff),
  };
}

function withoutReplyMapping(options: RedisConnectionOptions): RedisConnectionOptions {
  // A plain-JS caller may still pass it; drop it rather than change reply shapes under BullMQ.
  const { replyMapping: _dropped, ...rest } = options as RedisOptions;
  return rest;
}

/** A Redis client resolved from a {@link RedisConnectionInput}. */
export interface OpenedRedis {
  readonly client: Redis;
  /** Whether this module opened the client (and so must close it). */
  readonly owned: boolean;
  /** Closes the client if it was opened here; does nothing for a client passed in. */
  close(): Promise<void>;
}

/**
 * Resolves a {@link RedisConnectionInput}: a client passed in is used as is (and never closed
 * here); options open a new client (a `Cluster` for {@link ClusterConnectionOptions}) with
 * {@link producerRedisOptions} or {@link workerRedisOptions} applied according to `role`.
 *
 * @throws SwitchboardError `config.invalid` when the client or the options use an ioredis `keyPrefix`.
 */
export function openRedis(input: RedisConnectionInput, role: RedisRole): OpenedRedis {
  if (isRedisClient(input)) {
    rejectKeyPrefix(input.options.keyPrefix);
    return { client: input, owned: false, close: () => Promise.resolve() };
  }
  const roleOptions = role === 'producer' ? producerRedisOptions : workerRedisOptions;
  const client = 'clusterNodes' in input
    ? createClusterClient(input.clusterNodes, roleOptions(input.nodeOptions))
    : coalesceWrites(new Redis(roleOptions(input)));
  return { client, owned: true, close: () => closeRedis(client) };
}

/**
 * Closes a client gracefully (`QUIT`, which lets pending replies arrive) when it is connected, and
 * drops it otherwise ({@link dropRedis}, at once). Resolves once a connected client has ended.
 * Never throws.
 */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    dropRedis(client);
    return;
  }
  const ended = new Promise<void>((resolve) => {
    client.once('end', () => {
      resolve();
    });
  });
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
  await ended;
}

/**
 * Checks a key prefix: non-empty, without whitespace. BullMQ puts it in front of every queue key
 * (`<prefix>:<queue>:…`) and `queues/` puts it in front of its own keys.
 *
 * @throws SwitchboardError `config.invalid` for an empty prefix or one with whitespace.
 */
export function checkPrefix(prefix: string | undefined): string {
  const value = prefix ?? DEFAULT_PREFIX;
  if (value === '' || /\s/.test(value)) {
    throw new SwitchboardError('config.invalid', `Invalid queue key prefix "${value}"`, { details: { prefix: value } });
  }
  return value;
}

/**
 * Connection options for the queues from a `REDIS_URL`: one server's (host, port, credentials,
 * database, TLS), or a Redis Cluster's seed nodes when it lists several comma-separated URLs
 * (credentials and TLS of the first apply to every node).
 */
export function redisOptions(url: string): RedisConnectionOptions | ClusterConnectionOptions {
  const target = parseRedisTarget(url);
  if (target.cluster) return { clusterNodes: target.nodes, nodeOptions: target.settings };
  const [node] = target.nodes;
  return { ...node, ...target.settings };
}
