/**
 * Short-lived signed links to artifacts, for channels that cannot carry the file itself (SMS, a
 * link in a mail), and the route that serves them: `GET /artifacts/<id>?expires=<epoch s>&sig=<mac>`.
 * The MAC (HMAC-SHA256 under a secret) covers the id and the expiry, so a link cannot be pointed at
 * another artifact or kept alive longer. Files are always served as downloads, never rendered in
 * the service's origin.
 */
import { hmac, safeEqual } from '../crypto/signing.ts';
import { SwitchboardError } from '../../protocol/errors.ts';
import type { Route } from '../http/router.ts';
import type { ArtifactStore } from './artifact-store.ts';

/** Default lifetime of a signed link: 15 minutes, in milliseconds. */
export const DEFAULT_ARTIFACT_URL_TTL_MS = 15 * 60 * 1000;

/** Options of {@link signArtifactUrl}. */
export interface SignArtifactUrlOptions {
  /** The service's public base URL (`PUBLIC_URL`), e.g. `https://bot.example.com`; a trailing `/` is ignored. */
  readonly publicUrl: string;
  readonly artifactId: string;
  /** Key of the link MACs; the same secret must be given to {@link createArtifactRoutes}. */
  readonly secret: string;
  /** How long the link works, in milliseconds. Default {@link DEFAULT_ARTIFACT_URL_TTL_MS} (15 minutes). */
  readonly ttlMs?: number;
  /** The time the lifetime is counted from. */
  readonly now: Date;
}

/** What a link's query says: usable, tampered with (or not ours), or too old. */
export type ArtifactLinkCheck = 'ok' | 'invalid' | 'expired';

function requireSecret(secret: string): void {
  if (secret === '') throw new SwitchboardError('config.invalid', 'Artifact links need a non-empty secret.');
}

function linkMac(secret: string, artifactId: string, expires: string): string {
  return hmac(secret, `artifact-link\u0000${artifactId}\u0000${expires}`);
}

/**
 * A signed link to an artifact: `<publicUrl>/artifacts/<id>?expires=<epoch seconds>&sig=<mac>`.
 *
 * @example
 * signArtifactUrl({ publicUrl: 'https://bot.example.com', artifactId, secret, now: new Date() });
 * // 'https://bot.example.com/artifacts/3xY…Q?expires=1767225600&sig=…'
 * @throws SwitchboardError `config.invalid` for an empty secret or a `ttlMs` that is not positive.
 */
export function signArtifactUrl(options: SignArtifactUrlOptions): string {
  requireSecret(options.secret);
  const ttlMs = options.ttlMs ?? DEFAULT_ARTIFACT_URL_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new SwitchboardError('config.invalid', `ttlMs must be positive, got ${String(ttlMs)}`);
  const expires = String(Math.floor((options.now.getTime() + ttlMs) / 1000));
  const base = options.publicUrl.replace(/\/+$/, '');
  const query = new URLSearchParams({ expires, sig: linkMac(options.secret, options.artifactId, expires) });
  return `${base}/artifacts/${encodeURIComponent(options.artifactId)}?${query.toString()}`;
}

/** Checks a link's `expires` and `sig` for `artifactId` at `now`; the MAC is compared in constant time. */
export function checkArtifactLink(artifactId: string, query: URLSearchParams, secret: string, now: Date): ArtifactLinkCheck {
  const expires = query.get('expires') ?? '';
  const sig = query.get('sig') ?? '';
  if (!/^\d{1,12}$/.test(expires) || !safeEqual(sig, linkMac(secret, artifactId, expires))) return 'invalid';
  return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'ok';
}

/**
 * A `Content-Disposition` value that makes browsers download the file under `name`: an ASCII
 * fallback `filename` and the exact UTF-8 name in `filename*` (RFC 6266, RFC 8187).
 */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Options of {@link createArtifactRoutes}. */
export interface ArtifactRoutesOptions {
  readonly store: Pick<ArtifactStore, 'get'>;
  /** The secret links were signed with (see {@link signArtifactUrl}). */
  readonly secret: string;
  /** The time links are checked at. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/**
 * The route `GET /artifacts/:artifactId` (and `HEAD`): the file as a download with its type, size
 * and name, `nosniff`, a sandboxing CSP and no caching. A missing, tampered or expired signature is
 * 403 (checked before the store is read, so ids cannot be probed); an unknown or expired artifact 404.
 *
 * @throws SwitchboardError `config.invalid` for an empty secret.
 */
export function createArtifactRoutes(options: ArtifactRoutesOptions): Route[] {
  requireSecret(options.secret);
  const clock = options.clock ?? (() => new Date());
  return [
    {
      method: 'GET',
      pattern: '/artifacts/:artifactId',
      async handler({ res, url, params }) {
        const artifactId = params['artifactId'] ?? '';
        const check = checkArtifactLink(artifactId, url.searchParams, options.secret, clock());
        if (check !== 'ok') throw new SwitchboardError('http.forbidden', check === 'expired' ? 'This link has expired.' : 'This link is not valid.');
        const found = await options.store.get(artifactId);
        if (found === undefined) throw new SwitchboardError('http.not_found', 'No such file; it may have expired.');
        res.writeHead(200, {
          'content-type': found.meta.mimeType,
          'content-length': found.bytes.byteLength,
          'content-disposition': attachmentDisposition(found.meta.name),
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
          'cache-control': 'private, no-store',
          'referrer-policy': 'no-referrer',
        });
        res.end(found.bytes);
      },
    },
  ];
}
