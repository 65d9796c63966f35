/**
 * `TRUST_PROXY`: which reverse proxies are believed when they say, in `X-Forwarded-For`, whom
 * they forward a request for.
 */
import { isIP } from 'node:net';
import type { EnvReader } from './env-reader.ts';
import type { ProxyRange } from './env-types.ts';

/** The word in `TRUST_PROXY` that stands for every loopback address (`127.0.0.0/8` and `::1`). */
export const LOOPBACK_KEYWORD = 'loopback';

/** The ranges `loopback` stands for: `127.0.0.0/8` and `::1`. */
export const LOOPBACK_RANGES: readonly ProxyRange[] = [
  { address: '127.0.0.0', prefixLength: 8, family: 'ipv4' },
  { address: '::1', prefixLength: 128, family: 'ipv6' },
];

/** One entry (`10.0.0.1`, `10.0.0.0/8`, `fd00::/8`); a sentence saying what is wrong otherwise. */
function parseEntry(entry: string): readonly ProxyRange[] | string {
  if (entry.toLowerCase() === LOOPBACK_KEYWORD) return LOOPBACK_RANGES;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return `${JSON.stringify(entry)} is not an IP address or a CIDR range`;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const bits = version === 4 ? 32 : 128;
  if (slash < 0) return [{ address, prefixLength: bits, family }];
  const prefixText = entry.slice(slash + 1);
  const prefixLength = /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefixLength >= 0 && prefixLength <= bits)) return `${JSON.stringify(entry)} has a prefix length other than 0 to ${String(bits)}`;
  return [{ address, prefixLength, family }];
}

/**
 * Reads `TRUST_PROXY`: a comma-separated list of IP addresses (`127.0.0.1`, `::1`), CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`) and the word `loopback`; empty entries are skipped. Unset: no proxy is
 * trusted (an empty list). A bad entry is recorded on `reader` as a problem of `TRUST_PROXY`.
 *
 * @example
 * parseTrustProxy(new EnvReader({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }));
 * // [127.0.0.0/8, ::1/128, 10.0.0.0/8] as ProxyRange objects
 */
export function parseTrustProxy(reader: EnvReader): readonly ProxyRange[] {
  const value = reader.get('TRUST_PROXY');
  if (value === undefined) return [];
  const ranges: ProxyRange[] = [];
  const problems: string[] = [];
  for (const entry of value.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') problems.push(parsed);
    else ranges.push(...parsed);
  }
  if (problems.length > 0) {
    reader.fail('TRUST_PROXY', `must list IP addresses, CIDR ranges (e.g. 10.0.0.0/8) or "loopback", separated by commas: ${problems.join('; ')}.`);
    return [];
  }
  return ranges;
}
