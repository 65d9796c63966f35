/**
 * One-time sign-in links: how a configured person proves on the web who they are. A link is
 * `<PUBLIC_URL>/signin/<token>`, the token 128-bit random; Redis keeps only its SHA-256
 * (`<prefix>:web:signin:<hash>` → `{ personId, basis, expiresAt }`) with a short TTL, and the
 * first use takes it (`GETDEL`), so a link works once.
 */
import type { Redis } from 'ioredis';
import { isRandomToken, randomToken, sha256Hex } from '../../../src/runtime/crypto/signing.ts';

/** Default of {@link SignInLinkOptions.ttlMs}: 15 minutes. */
export const DEFAULT_SIGN_IN_TTL_MS = 15 * 60 * 1000;

/**
 * How the person came by the link, kept with the session and every decision it takes: given by an
 * operator, or sent to one of the person's verified addresses (`link sent to email ada@example.com`).
 */
export type SignInBasis = 'invite by operator' | `link sent to ${string}`;

/** Options of {@link issueSignInLink} and {@link redeemSignInToken}. */
export interface SignInLinkOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb`. */
  readonly prefix: string;
  /** `PUBLIC_URL`, without trailing slash: the base of the links. */
  readonly publicUrl: string;
  /** How long a link stays usable, in ms. Default {@link DEFAULT_SIGN_IN_TTL_MS}. */
  readonly ttlMs?: number;
  /** Time source. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** An issued link. */
export interface SignInLink {
  /** `<PUBLIC_URL>/signin/<token>`: give it to the person only. */
  readonly url: string;
  /** ISO 8601; after it the link no longer works. */
  readonly expiresAt: string;
}

/** What a redeemed token was bound to. */
export interface SignInGrant {
  readonly personId: string;
  readonly basis: SignInBasis;
}

const keyOf = (prefix: string, token: string): string => `${prefix}:web:signin:${sha256Hex(token)}`;

/**
 * Issues a one-time sign-in link for a configured person. The caller checks that `personId` is a
 * person of the app and chooses who gets the link; the link is checked again when used.
 *
 * @example
 * const { url } = await issueSignInLink({ redis, prefix: 'sb', publicUrl: env.publicUrl }, 'ada', 'link sent to email ada@example.com');
 */
export async function issueSignInLink(options: SignInLinkOptions, personId: string, basis: SignInBasis): Promise<SignInLink> {
  const ttlMs = options.ttlMs ?? DEFAULT_SIGN_IN_TTL_MS;
  const now = (options.clock ?? (() => new Date()))();
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  const token = randomToken();
  await options.redis.set(keyOf(options.prefix, token), JSON.stringify({ personId, basis, expiresAt }), 'PX', ttlMs);
  return { url: `${options.publicUrl}/signin/${token}`, expiresAt };
}

/**
 * Uses up a token: its grant the first time within its lifetime, `undefined` after that, after
 * expiry, and for a token never issued.
 */
export async function redeemSignInToken(options: Pick<SignInLinkOptions, 'redis' | 'prefix' | 'clock'>, token: string): Promise<SignInGrant | undefined> {
  if (!isRandomToken(token)) return undefined;
  const raw = await options.redis.getdel(keyOf(options.prefix, token));
  if (raw === null) return undefined;
  let stored: { personId?: unknown; basis?: unknown; expiresAt?: unknown };
  try {
    stored = JSON.parse(raw) as typeof stored;
  } catch {
    return undefined;
  }
  const now = (options.clock ?? (() => new Date()))().getTime();
  if (typeof stored.personId !== 'string' || typeof stored.basis !== 'string' || typeof stored.expiresAt !== 'string') return undefined;
  if (Date.parse(stored.expiresAt) < now) return undefined;
  return { personId: stored.personId, basis: stored.basis as SignInBasis };
}
