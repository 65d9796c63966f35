/**
 * Who sent a request: the socket's peer, or, when that peer is a trusted reverse proxy
 * (`TRUST_PROXY`), the client its `X-Forwarded-For` names. Proxy headers from any other peer are
 * ignored as addresses but still mark the request as one that came through a proxy.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { ProxyRange } from '../../config/env-types.ts';
import { LOOPBACK_RANGES } from '../../config/parse-trust-proxy.ts';

/** Headers a reverse proxy adds; a request carrying any of them most likely came through one. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'x-forwarded-proto', 'via'] as const;

/** Where a request came from, as far as the trusted proxies tell. */
export interface RequestOrigin {
  /**
   * The client's IP address: the socket's peer, or the rightmost `X-Forwarded-For` entry that is
   * not a trusted proxy. `undefined` when unknown: a trusted proxy sent no (or an unreadable)
   * `X-Forwarded-For`, or the socket is gone.
   */
  readonly client: string | undefined;
  /**
   * How it came: `direct` (no proxy headers), `trusted-proxy` (the peer is a trusted proxy), or
   * `other-proxy` (proxy headers from a peer that is not trusted: ignored, but telling).
   */
  readonly via: 'direct' | 'trusted-proxy' | 'other-proxy';
}

/** The set of trusted proxy addresses; see {@link createProxyTrust}. */
export interface ProxyTrust {
  /** Whether `address` (IPv4, IPv6 or IPv4-mapped IPv6) is a trusted proxy. */
  trusts(address: string): boolean;
}

/** `::ffff:10.0.0.1` as `10.0.0.1`; any other address as is, without an IPv6 zone. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  const zone = address.indexOf('%');
  return zone < 0 ? address : address.slice(0, zone);
}

function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

function blockListOf(ranges: readonly ProxyRange[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) list.addSubnet(range.address, range.prefixLength, range.family);
  return list;
}

function contains(list: BlockList, address: string): boolean {
  const plain = plainAddress(address);
  const family = familyOf(plain);
  return family !== undefined && list.check(plain, family);
}

/** Builds the matcher of `TRUST_PROXY`'s ranges (an empty list trusts nobody). */
export function createProxyTrust(ranges: readonly ProxyRange[]): ProxyTrust {
  const list = blockListOf(ranges);
  return { trusts: (address) => contains(list, address) };
}

const LOOPBACK = blockListOf(LOOPBACK_RANGES);

/** Whether `address` is a loopback address (`127.0.0.0/8`, `::1`, or their IPv4-mapped forms). */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && contains(LOOPBACK, address);
}

/** Whether the request carries a header a reverse proxy adds (`X-Forwarded-*`, `Forwarded`, `X-Real-IP`, `Via`). */
export function hasProxyHeaders(req: IncomingMessage): boolean {
  return PROXY_HEADERS.some((name) => req.headers[name] !== undefined);
}

/** The `X-Forwarded-For` hops, leftmost first (several headers are joined by Node with commas). */
function forwardedFor(req: IncomingMessage): string[] {
  const value = req.headers['x-forwarded-for'];
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
}

/**
 * Where `req` came from. A peer that `trust` does not trust is the client, whatever headers it
 * sent; a trusted peer's `X-Forwarded-For` is walked from the right, skipping trusted proxies, and
 * the first other address is the client (the leftmost when all are trusted). An entry that is not an
 * IP address ends the walk with an unknown client.
 */
export function requestOrigin(req: IncomingMessage, trust: ProxyTrust): RequestOrigin {
  const peer = req.socket.remoteAddress;
  if (peer === undefined || !trust.trusts(peer)) {
    return { client: peer === undefined ? undefined : plainAddress(peer), via: hasProxyHeaders(req) ? 'other-proxy' : 'direct' };
  }
  const hops = forwardedFor(req);
  let client: string | undefined;
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = plainAddress(hops[index] ?? '');
    if (familyOf(hop) === undefined) return { client: undefined, via: 'trusted-proxy' };
    client = hop;
    if (!trust.trusts(hop)) break;
  }
  return { client, via: 'trusted-proxy' };
}
