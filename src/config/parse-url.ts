import type { EnvReader } from './env-reader.ts';
import type { EnvVariable } from './env-variables.ts';

/** How {@link parseHttpUrl} normalises the end of the path. */
export type TrailingSlash = 'strip' | 'require';

/**
 * Parses `value` as an absolute http(s) URL without credentials, query or fragment, and
 * normalises its path end: `strip` removes trailing slashes (`https://x.test/bot/` becomes
 * `https://x.test/bot`), `require` adds one when missing. Records a problem and returns
 * `undefined` when it is not such a URL.
 */
export function parseHttpUrl(
  reader: EnvReader,
  name: EnvVariable,
  value: string,
  trailingSlash: TrailingSlash,
): string | undefined {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    reader.fail(name, `must be an absolute http:// or https:// URL${reader.got(name, value)}.`);
    return undefined;
  }
  if (url.username !== '' || url.password !== '') {
    reader.fail(name, 'must not contain a user name or password.');
    return undefined;
  }
  if (url.search !== '' || url.hash !== '') {
    reader.fail(name, `must not have a query (?) or fragment (#)${reader.got(name, value)}.`);
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  return trailingSlash === 'strip' ? `${url.origin}${path}` : `${url.origin}${path}/`;
}

/**
 * Parses `REDIS_URL`: one `redis://` or `rediss://` URL with a host, or several separated by commas
 * for the seed nodes of a Redis Cluster (`redis://10.0.0.1:7000,redis://10.0.0.2:7000`; the first
 * URL's credentials and TLS apply to every node, and a cluster has database 0 only). Returns the
 * value unchanged, or `undefined` after recording a problem.
 */
export function parseRedisUrl(reader: EnvReader, name: EnvVariable, value: string): string | undefined {
  const parts = value.split(',').map((part) => part.trim());
  const cluster = parts.length > 1;
  for (const part of parts) {
    const problem = redisUrlProblem(part, cluster);
    if (problem !== undefined) {
      reader.fail(name, cluster ? `${problem} (in the cluster node list, each comma-separated URL counts)` : problem);
      return undefined;
    }
  }
  return value;
}

/** What is wrong with one URL of `REDIS_URL`, or `undefined`. */
function redisUrlProblem(part: string, cluster: boolean): string | undefined {
  const url = URL.parse(part);
  if (url === null || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
    return cluster
      ? 'must list redis:// or rediss:// URLs separated by commas, e.g. redis://10.0.0.1:7000,redis://10.0.0.2:7000'
      : 'must be a redis:// or rediss:// URL, e.g. redis://localhost:6379; or leave it unset to start a private redis-server.';
  }
  if (url.hostname === '') return 'has no host name (expected redis://[user:password@]host[:port][/db]).';
  if (url.port !== '' && !isTcpPort(Number(url.port))) return 'has a port outside 1..65535.';
  if (cluster && url.pathname.length > 1 && url.pathname !== '/0') return 'names a database: a Redis Cluster has database 0 only.';
  return undefined;
}

/** Whether `port` is an integer from 1 to 65535. */
export function isTcpPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65_535;
}

/** `decodeURIComponent` that answers `undefined` instead of throwing on a bad `%` sequence. */
export function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
