/**
 * Who may see the operator pages (`/admin*`, `/metrics`): with `ADMIN_TOKEN` set, requests carrying
 * it as a bearer token; without it, loopback clients only.
 *
 * "Loopback client" is decided with care, because a reverse proxy on the same host makes every
 * request arrive from a loopback address:
 * - the client address is the socket's peer, or the one a trusted proxy (`TRUST_PROXY`) names in
 *   `X-Forwarded-For` (see `client-address.ts`);
 * - a request that carries proxy headers (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`, `Via`, ...)
 *   from a peer that is not a trusted proxy is taken as proxied and is not loopback, even from
 *   127.0.0.1: a proxy nobody told us about is the likeliest sender;
 * - a trusted proxy's request is loopback only when its real client is;
 * - the `Host` header must name a loopback host (`localhost`, `127.x.x.x`, `[::1]`), so that a
 *   proxy passing the public host name, or a DNS-rebinding page in an operator's browser, is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyRange } from '../../config/env-types.ts';
import { SwitchboardError } from '../../protocol/errors.ts';
import { createProxyTrust, isLoopbackAddress, requestOrigin, type ProxyTrust } from './client-address.ts';
import { sendJson } from './router.ts';

/** How operator requests are let in. */
export interface OperatorAccess {
  /** `ADMIN_TOKEN`: the bearer token of the operator pages; `undefined`: loopback clients only. */
  readonly adminToken: string | undefined;
  /** `TRUST_PROXY`'s ranges. Default none: no proxy header is believed. */
  readonly trustProxy?: readonly ProxyRange[];
}

const NO_PROXIES: readonly ProxyRange[] = [];
const trustByRanges = new WeakMap<readonly ProxyRange[], ProxyTrust>();

function trustOf(ranges: readonly ProxyRange[]): ProxyTrust {
  let trust = trustByRanges.get(ranges);
  if (trust === undefined) {
    trust = createProxyTrust(ranges);
    trustByRanges.set(ranges, trust);
  }
  return trust;
}

/** Whether a `Host` header names this machine's loopback interface (any port). */
function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = (/^\[([^\]]+)\](?::\d+)?$/.exec(host)?.[1] ?? host.replace(/:\d+$/, '')).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/** Whether `req` comes from a client on this machine, by the rules of this module's comment. */
export function isLoopbackRequest(req: IncomingMessage, trustProxy: readonly ProxyRange[] = NO_PROXIES): boolean {
  const origin = requestOrigin(req, trustOf(trustProxy));
  return origin.via !== 'other-proxy' && isLoopbackAddress(origin.client) && isLoopbackHost(req.headers.host);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares in constant time (over fixed-length digests, so the token length does not leak either). */
function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Why `req` may not see the operator pages, or `undefined` when it may.
 * `http.unauthorized` (401) without the right bearer token when one is set; `http.forbidden` (403)
 * for a client that is not loopback when none is.
 */
export function operatorRefusal(req: IncomingMessage, access: OperatorAccess): SwitchboardError | undefined {
  if (access.adminToken !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (match !== null && tokenMatches((match[1] ?? '').trim(), access.adminToken)) return undefined;
    return new SwitchboardError('http.unauthorized', 'The operator pages need "Authorization: Bearer <ADMIN_TOKEN>".');
  }
  if (isLoopbackRequest(req, access.trustProxy)) return undefined;
  return new SwitchboardError(
    'http.forbidden',
    'Without ADMIN_TOKEN the operator pages answer only loopback clients, never a request that came through a proxy. Set ADMIN_TOKEN to reach them remotely.',
    { details: { reason: 'not_loopback' } },
  );
}

/**
 * Lets an operator request through (bearer `ADMIN_TOKEN`, or a loopback client when it is unset);
 * otherwise answers 401 (with `WWW-Authenticate`) or 403 itself, as a coded JSON error, and
 * returns `false`.
 *
 * @example
 * if (!authorize(req, res, { adminToken: env.adminToken, trustProxy: env.trustProxy })) return;
 */
export function authorize(req: IncomingMessage, res: ServerResponse, access: OperatorAccess): boolean {
  const refusal = operatorRefusal(req, access);
  if (refusal === undefined) return true;
  if (refusal.code === 'http.unauthorized') res.setHeader('www-authenticate', 'Bearer realm="switchboard-admin"');
  sendJson(res, refusal.code === 'http.unauthorized' ? 401 : 403, { error: refusal.toJSON() });
  return false;
}
