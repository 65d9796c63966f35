/**
 * What a `REDIS_URL` names: one Redis server (`redis://host:6379/0`), or the seed nodes of a Redis
 * Cluster when it lists several URLs separated by commas
 * (`redis://10.0.0.1:7000,redis://10.0.0.2:7000`). Credentials and TLS of the first URL apply to
 * every node; a cluster has database 0 only.
 */

/** One `host:port` of a {@link RedisTarget}. */
export interface RedisNodeAddress {
  readonly host: string;
  /** TCP port. Default 6379 when the URL has none. */
  readonly port: number;
}

/** Connection settings shared by every node of a {@link RedisTarget}, taken from its first URL. */
export interface RedisNodeSettings {
  readonly username?: string;
  readonly password?: string;
  /** Database number; never set for a cluster. */
  readonly db?: number;
  /** `{}` for `rediss://` (TLS with the system's CAs), unset for `redis://`. */
  readonly tls?: object;
}

/** A parsed `REDIS_URL`. */
export interface RedisTarget {
  /** Whether the URL lists several nodes: then it names a Redis Cluster. */
  readonly cluster: boolean;
  /** The server, or the cluster's seed nodes, in the order given. */
  readonly nodes: readonly RedisNodeAddress[];
  readonly settings: RedisNodeSettings;
}

/**
 * Splits a `REDIS_URL` into its URLs: comma separated, blanks around them ignored.
 *
 * @example
 * redisUrlParts('redis://a:7000, redis://b:7000'); // ['redis://a:7000', 'redis://b:7000']
 */
export function redisUrlParts(url: string): string[] {
  return url.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

/** Whether `url` lists several nodes, i.e. names a Redis Cluster. */
export function isClusterUrl(url: string): boolean {
  return redisUrlParts(url).length > 1;
}

/**
 * Parses a `REDIS_URL` that `loadEnv` has validated (see `parseRedisUrl`). Throws `TypeError` on
 * a URL that is not one.
 */
export function parseRedisTarget(url: string): RedisTarget {
  const parsed = redisUrlParts(url).map((part) => new URL(part));
  const [first] = parsed;
  if (first === undefined) throw new TypeError('REDIS_URL is empty');
  const cluster = parsed.length > 1;
  const db = first.pathname.length > 1 ? Number(first.pathname.slice(1)) : undefined;
  const settings: RedisNodeSettings = {
    ...(first.username === '' ? {} : { username: decodeURIComponent(first.username) }),
    ...(first.password === '' ? {} : { password: decodeURIComponent(first.password) }),
    ...(cluster || db === undefined || Number.isNaN(db) ? {} : { db }),
    ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  const nodes = parsed.map((node) => ({ host: hostOf(node), port: node.port === '' ? 6379 : Number(node.port) }));
  return { cluster, nodes, settings };
}

/** The host name without the brackets `URL` keeps around an IPv6 address. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
}

/** The default key and queue prefix of a deployment. */
const DEFAULT_SERVICE_PREFIX = 'sb';

/**
 * The key prefix a deployment uses on the Redis named by `url`. On one server it is `prefix` as
 * given. On a cluster every Lua script and `MULTI` must touch keys of one hash slot, so the prefix
 * becomes a hash tag (`sb` → `{sb}`): BullMQ's keys (`{sb}:inbound:…`) and switchboard's own
 * (`{sb}:s:<session>:…`) then all hash to the slot of `sb`. A prefix that already holds a
 * non-empty `{…}` tag is kept as it is.
 *
 * @param prefix - Default `sb`.
 *
 * @example
 * deploymentPrefix('redis://a:7000,redis://b:7000'); // '{sb}'
 * deploymentPrefix('redis://localhost:6379', 'acme'); // 'acme'
 */
export function deploymentPrefix(url: string, prefix: string = DEFAULT_SERVICE_PREFIX): string {
  if (!isClusterUrl(url) || hasHashTag(prefix)) return prefix;
  return `{${prefix}}`;
}

/** Whether Redis Cluster would hash `key` by a `{…}` tag in it (a non-empty one, first `{` to next `}`). */
export function hasHashTag(key: string): boolean {
  const open = key.indexOf('{');
  if (open === -1) return false;
  const close = key.indexOf('}', open + 1);
  return close > open + 1;
}

/** The `host:port` of each node `url` names, comma-separated, for messages (no password). */
export function redisAddress(url: string): string {
  return parseRedisTarget(url).nodes.map((node) => `${node.host}:${String(node.port)}`).join(', ');
}
