/**
 * Checks on every state-changing request of the web chat, after its session is known: the CSRF
 * token (HMAC of `csrf:<sid>` under the session secret, sent in `x-csrf-token`), an `Origin` that
 * is this service's, and a JSON body.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { requireJsonContentType } from '../../../src/runtime/http/request-body.ts';
import { hmac } from '../../../src/runtime/crypto/signing.ts';
import { macMatches } from './remembered-mac.ts';

/** The header the page sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** What a session's CSRF token signs. */
function csrfSignedText(sid: string): string {
  return `csrf:${sid}`;
}

/** The CSRF token of a session: HMAC-SHA256 of `csrf:<sid>` under the session secret, base64url. */
export function csrfTokenFor(secret: string, sid: string): string {
  return hmac(secret, csrfSignedText(sid));
}

function forbidden(message: string, reason: string): SwitchboardError {
  return new SwitchboardError('http.forbidden', message, { details: { reason } });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The origin the request was addressed to, from its `Host` header and whether it came over TLS. */
function ownOrigin(req: IncomingMessage): string | undefined {
  const host = header(req, 'host');
  if (host === undefined || host.length === 0) return undefined;
  const encrypted = (req.socket as Partial<TLSSocket>).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${host.toLowerCase()}`;
}

/**
 * Refuses a cross-site request: an `Origin` header, when present, must be `PUBLIC_URL`'s origin or
 * the request's own. Browsers send `Origin` on every POST, so a page elsewhere cannot pass.
 *
 * @throws SwitchboardError `http.forbidden` (403).
 */
export function checkOrigin(req: IncomingMessage, publicUrl: string): void {
  const origin = header(req, 'origin');
  if (origin === undefined) return;
  const allowed = [new URL(publicUrl).origin, ownOrigin(req)];
  if (!allowed.includes(origin.toLowerCase())) {
    throw forbidden(`Requests from ${JSON.stringify(origin)} are not accepted here; only this service's own pages may post.`, 'origin');
  }
}

/**
 * Everything a state-changing request of a session must pass: {@link checkOrigin}, the CSRF token
 * in {@link CSRF_HEADER} (compared in constant time), and a JSON body (`requireJsonContentType`), before
 * anything of it is read.
 *
 * @throws SwitchboardError `http.forbidden` (403) for the origin or the token,
 *   `http.unsupported_media_type` (415) for the body type.
 */
export function checkSessionPost(req: IncomingMessage, options: { readonly secret: string; readonly sid: string; readonly publicUrl: string }): void {
  checkOrigin(req, options.publicUrl);
  const token = header(req, CSRF_HEADER);
  if (token === undefined || !macMatches(options.secret, csrfSignedText(options.sid), token)) {
    throw forbidden(`The request lacks a valid ${CSRF_HEADER} header. Reload the page and try again.`, 'csrf');
  }
  requireJsonContentType(req);
}
