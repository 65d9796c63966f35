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

/** Parses a `redis://` or `rediss://` URL with a host. Returns it unchanged, or `undefined`. */
export function parseRedisUrl(reader: EnvReader, name: EnvVariable, value: string): string | undefined {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
    reader.fail(
      name,
      'must be a redis:// or rediss:// URL, e.g. redis://localhost:6379; or leave it unset to start a private redis-server.',
    );
    return undefined;
  }
  if (url.hostname === '') {
    reader.fail(name, 'has no host name (expected redis://[user:password@]host[:port][/db]).');
    return undefined;
  }
  if (url.port !== '' && !isTcpPort(Number(url.port))) {
    reader.fail(name, 'has a port outside 1..65535.');
    return undefined;
  }
  return value;
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
