/**
 * The `sb_session` cookie: `<sid>.<mac>`, where `mac` is HMAC-SHA256 of the session id under the
 * session secret. A cookie whose mac does not verify is treated as absent; the sid it names must
 * also still exist in Redis (see `session-store.ts`) before it identifies anyone.
 */
import type { IncomingMessage } from 'node:http';
import { hmac, isRandomToken } from '../../../src/runtime/crypto/signing.ts';
import { macMatches } from './remembered-mac.ts';

/** The cookie's name. */
export const SESSION_COOKIE = 'sb_session';

/** Where the generated session secret is kept (`<prefix>:web:secret:session`), when `SESSION_SECRET` is unset. */
export const SESSION_SECRET_PURPOSE = 'web:secret:session';

/** What the request's cookie says: a verified session id, a forged or malformed cookie, or none. */
export type CookieReading = { readonly kind: 'sid'; readonly sid: string } | { readonly kind: 'forged' } | { readonly kind: 'absent' };

/** Options of {@link sessionCookieHeader}. */
export interface SessionCookieOptions {
  /** How long the browser keeps the cookie, in ms (sent as `Max-Age` in seconds). */
  readonly maxAgeMs: number;
  /** Adds `Secure` (when `PUBLIC_URL` is https). */
  readonly secure: boolean;
}

/** What the cookie's mac signs. */
function signedText(sid: string): string {
  return `sid:${sid}`;
}

/** Every value of the cookie `name` in a `Cookie` header, in order. */
function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  return header.split(';').flatMap((pair) => {
    const at = pair.indexOf('=');
    if (at === -1 || pair.slice(0, at).trim() !== name) return [];
    return [pair.slice(at + 1).trim()];
  });
}

/**
 * Reads and verifies the session cookie of a request. When several `sb_session` cookies are sent
 * (a cookie set for a parent domain, say), the first whose mac verifies wins.
 */
export function readSessionCookie(req: IncomingMessage, secret: string): CookieReading {
  const values = cookieValues(req.headers.cookie, SESSION_COOKIE);
  for (const value of values) {
    const [sid, mac, extra] = value.split('.');
    if (sid === undefined || mac === undefined || extra !== undefined || !isRandomToken(sid)) continue;
    if (macMatches(secret, signedText(sid), mac)) return { kind: 'sid', sid };
  }
  return values.length === 0 ? { kind: 'absent' } : { kind: 'forged' };
}

/** The `Set-Cookie` value for a session: `HttpOnly; SameSite=Lax; Path=/; Max-Age=…` (+ `Secure`). */
export function sessionCookieHeader(sid: string, secret: string, options: SessionCookieOptions): string {
  const maxAge = Math.floor(options.maxAgeMs / 1000);
  const parts = [`${SESSION_COOKIE}=${sid}.${hmac(secret, signedText(sid))}`, 'Path=/', `Max-Age=${String(maxAge)}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
