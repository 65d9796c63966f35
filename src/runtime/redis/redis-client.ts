/**
 * The one place that opens Redis clients from a `REDIS_URL`: an ioredis `Redis` for one server, an
 * ioredis `Cluster` when the URL lists several seed nodes (see `redis-target.ts`).
 *
 * Both are typed `Redis` for the rest of the code. ioredis' `Cluster` implements the same command
 * API (every command is routed to the node owning its first key's slot; `MULTI`, pipelines and Lua
 * scripts work when all their keys share one slot, which the hash-tag prefix of
 * `deploymentPrefix` guarantees) and BullMQ accepts it as a `connection`. What differs is the
 * handful of calls that are not about keys: `duplicate(…)` ({@link duplicateRedis}), `SCAN`
 * ({@link redisScanNodes}) and `instanceof Redis` ({@link isRedisClient}). The casts below are
 * the only ones; they rely on that shared command API.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { REDIS_RECONNECT, reconnectDelayMs, type ReconnectBackoff } from './reconnect-delay.ts';
import { parseRedisTarget, type RedisNodeAddress } from './redis-target.ts';
import { coalesceWrites } from './write-coalescing.ts';

/** ioredis options for {@link createRedisClient}; on a cluster they are split as {@link createClusterClient} says. */
export type RedisClientOptions = Omit<RedisOptions, 'host' | 'port' | 'path' | 'sentinels' | 'replyMapping'>;

/**
 * Opens a client for a `REDIS_URL`: a `Redis` for one URL, a `Cluster` (typed `Redis`, see the
 * file comment) for a comma-separated list of seed nodes. Credentials, database and TLS come from
 * the (first) URL; `options` add to them. The commands of one event-loop turn leave in one socket write
 * ({@link coalesceWrites}). The caller closes the client (`quit()`).
 *
 * @example
 * const redis = createRedisClient(env.redis.url, { maxRetriesPerRequest: 3 });
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const target = parseRedisTarget(url);
  const settings = { ...target.settings, ...options };
  if (target.cluster) return createClusterClient(target.nodes, settings);
  const [node] = target.nodes;
  return coalesceWrites(new Redis({ ...settings, ...(node === undefined ? {} : { host: node.host, port: node.port }) }));
}

/**
 * Options of the service's shared command client (requests, stores, turns), made to fail fast
 * while Redis is away rather than queue:
 *
 * - `enableOfflineQueue: false`: a command sent while the client is not connected fails at once;
 *   nothing waits in memory to run later, behind an answer that already said it failed.
 * - `maxRetriesPerRequest: 0`: a command under way when the connection drops fails with it and is
 *   not sent again after the reconnect.
 * - `lazyConnect: true`: the caller connects (`await redis.connect()`) before the first command.
 * - Reconnects for ever, 100 ms doubling to 2 s apart ({@link REDIS_RECONNECT}).
 *
 * Such failures are `redis.unavailable` to the HTTP layer (503 with `Retry-After`), and a failed
 * turn step is retried by its queue. Connections that must wait for Redis (queue workers, session
 * locks) are made in `queues/redis-connections.ts`; a subscriber waits for `ready` before it
 * subscribes (see `untilRedisReady`).
 */
export function serviceRedisOptions(): RedisClientOptions {
  return { ...failFastRedisOptions(), lazyConnect: true };
}

/** The settings that make a client fail fast while Redis is away; see {@link failFastRedisOptions}. */
export type FailFastRedisOptions = Required<Pick<RedisOptions, 'enableOfflineQueue' | 'maxRetriesPerRequest' | 'retryStrategy'>>;

/**
 * The fail-fast part shared by {@link serviceRedisOptions} and the queues' producer connections:
 * no offline queue, no resending of a command caught by a dropped connection, and a reconnect
 * for ever with `backoff` (default {@link REDIS_RECONNECT}).
 */
export function failFastRedisOptions(backoff: ReconnectBackoff = REDIS_RECONNECT): FailFastRedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times: number) => reconnectDelayMs(times, backoff),
  };
}

/**
 * Opens a Redis Cluster client on `nodes` (seeds: the client discovers the others). Options that
 * ioredis takes for the cluster as a whole are moved there: `retryStrategy` becomes
 * `clusterRetryStrategy`; `enableOfflineQueue`, `lazyConnect`, `enableReadyCheck` and the
 * auto-pipelining options stay at the top; everything else (credentials, TLS, timeouts,
 * `maxRetriesPerRequest`) applies to each node connection. A `db` is dropped: a cluster has
 * database 0 only. Each node connection sends the commands of one event-loop turn in one socket write
 * ({@link coalesceWrites}).
 *
 * @returns The `Cluster`, typed `Redis` (see the file comment).
 */
export function createClusterClient(nodes: readonly RedisNodeAddress[], options: RedisClientOptions = {}): Redis {
  const { retryStrategy, enableOfflineQueue, lazyConnect, enableReadyCheck, enableAutoPipelining, autoPipeliningIgnoredCommands, readOnly: _readOnly, himportFieldsets: _fieldsets, db: _db, ...nodeOptions } = options;
  const clusterOptions = {
    ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableReadyCheck === undefined ? {} : { enableReadyCheck }),
    ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
    ...(autoPipeliningIgnoredCommands === undefined ? {} : { autoPipeliningIgnoredCommands }),
    redisOptions: nodeOptions,
  } satisfies ClusterOptions;
  return coalesceWrites(new Cluster(nodes.map((node) => ({ host: node.host, port: node.port })), clusterOptions)) as unknown as Redis;
}

/** Whether `value` is an open-able ioredis client: a `Redis` or a `Cluster` (typed `Redis`). */
export function isRedisClient(value: unknown): value is Redis {
  return value instanceof Redis || value instanceof Cluster;
}

/** Whether `redis` is a `Cluster` client. */
export function isCluster(redis: Redis): boolean {
  return (redis as unknown) instanceof Cluster;
}

/**
 * A new client to the same server or cluster with the same options and `overrides` (e.g. a
 * blocking or subscriber connection). `Redis#duplicate(options)` and `Cluster#duplicate(nodes,
 * options)` differ in their first parameter; this calls the right one. On a cluster,
 * `retryStrategy`, `readOnly` and `db` of `overrides` are ignored (the cluster keeps its own). The
 * caller closes the client.
 */
export function duplicateRedis(redis: Redis, overrides: RedisClientOptions = {}): Redis {
  if (!isCluster(redis)) return redis.duplicate(overrides);
  const cluster = redis as unknown as Cluster;
  const { lazyConnect, enableOfflineQueue, retryStrategy: _retry, readOnly: _readOnly, himportFieldsets: _fieldsets, db: _db, ...nodeOverrides } = overrides;
  // Cluster#duplicate merges its options shallowly: node options are merged here.
  const { replyMapping: _mapping, ...inherited } = cluster.options.redisOptions ?? {};
  return cluster.duplicate(undefined, {
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    redisOptions: { ...inherited, ...nodeOverrides },
  }) as unknown as Redis;
}

/**
 * The connections a `SCAN` must visit to see every key: the client itself for one server, every
 * master of a cluster (each holds its own slots; ioredis would send `SCAN` to one node only).
 * Waits for the cluster's slot map when the client is not connected yet.
 */
export async function redisScanNodes(redis: Redis): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  const cluster = redis as unknown as Cluster;
  if (cluster.nodes('master').length === 0) await cluster.ping();
  return cluster.nodes('master');
}

/**
 * Every key matching `pattern`, in batches as `SCAN` returns them, from every node of
 * {@link redisScanNodes}. Stop early with `break`.
 *
 * @param count - `SCAN`'s `COUNT` hint: keys looked at per call. Default 500.
 *
 * @example
 * for await (const keys of scanKeys(redis, `${prefix}:s:*:turn`)) console.log(keys);
 */
export async function* scanKeys(redis: Redis, pattern: string, count = 500): AsyncGenerator<string[]> {
  for (const node of await redisScanNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}
