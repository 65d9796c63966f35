/**
 * The web chat's identity service: who a request comes from (its signed `sb_session` cookie and the
 * session record it names), what it must carry to change anything (CSRF token, own origin), which
 * conversations it owns, and signing in as a configured person by rotating the session.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { AcceptCondition } from '../../../src/runtime/session/session-store.ts';
import { createConversationOwners, type ConversationOwners } from './conversation-owner.ts';
import { checkSessionPost, csrfTokenFor } from './request-guard.ts';
import { readSessionCookie, sessionCookieHeader } from './session-cookie.ts';
import { createSessionStore, newBrowserIdentity, type WebSession } from './session-store.ts';
import { redeemSignInToken, type SignInGrant } from './sign-in-links.ts';
import { COOKIE_BASIS } from './web-principal.ts';

/** A configured person, as the web identity needs them. */
export interface WebPerson {
  readonly id: string;
  readonly name: string;
}

/** Options of {@link createWebIdentity}. */
export interface WebIdentityOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb`. */
  readonly prefix: string;
  /** The session secret (`SESSION_SECRET`, else kept in Redis: see `channels/kit/kept-secret.ts`). Never logged. */
  readonly secret: string;
  /** `PUBLIC_URL`: the allowed `Origin`, and `Secure` cookies when it is https. */
  readonly publicUrl: string;
  /** The app's people: a session's person must still be one of them to count. */
  readonly people: readonly WebPerson[];
  /** How long a session lives after its last use, in ms. Default 30 days. */
  readonly sessionTtlMs?: number;
  /** Time source. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** A state-changing request's session, and what the write it asks for must find (see {@link WebIdentity.authorisePost}). */
export interface AuthorisedPost {
  readonly session: WebSession;
  /** The session's record must still be there when the write is made: the write checks it in its own script. */
  readonly condition: AcceptCondition;
}

/** The identity service; see {@link createWebIdentity}. */
export interface WebIdentity {
  readonly publicUrl: string;
  readonly owners: ConversationOwners;
  /** The request's session; `undefined` without a cookie, with a forged one, or a revoked or expired sid. */
  current(req: IncomingMessage): Promise<WebSession | undefined>;
  /** The request's session. @throws SwitchboardError `http.unauthorized` (401) when there is none. */
  require(req: IncomingMessage): Promise<WebSession>;
  /**
   * The session of a state-changing request, after its CSRF token, origin and body type passed.
   * @throws SwitchboardError `http.unauthorized` (401), `http.forbidden` (403) or `http.unsupported_media_type` (415).
   */
  requirePost(req: IncomingMessage): Promise<WebSession>;
  /**
   * {@link requirePost} for a request whose one write can check the session itself (a chat
   * message's accept): without reading Redis when this process knows the session (a session's
   * record never changes), with the condition the write must carry. When the write finds the
   * session gone, answer {@link lapsed}. Same errors as {@link requirePost}.
   */
  authorisePost(req: IncomingMessage): Promise<AuthorisedPost>;
  /** The 401 of a request whose write found its session gone (revoked or expired); the process forgets the session. */
  lapsed(session: WebSession): SwitchboardError;
  /** Starts a session with a fresh identity, signed in to nobody. */
  start(): Promise<WebSession>;
  /**
   * Signs the browser in as the grant's person: a new session (new sid) replaces `previous`, which
   * is revoked. The identity is kept when `previous` was anonymous or the same person's.
   */
  signIn(previous: WebSession | undefined, grant: SignInGrant): Promise<WebSession>;
  /** Uses up a sign-in token; `undefined` when it is unknown, used, expired or its person is gone. */
  redeem(token: string): Promise<SignInGrant | undefined>;
  /** Sets the session's cookie on a response. */
  setCookie(res: ServerResponse, session: WebSession): void;
  /** The session's CSRF token, for the page to send in `x-csrf-token`. */
  csrfToken(session: WebSession): string;
  /** The session's person, when it signed in as one. */
  personOf(session: WebSession): WebPerson | undefined;
}

function unauthorized(reason: 'absent' | 'forged' | 'unknown'): SwitchboardError {
  return new SwitchboardError('http.unauthorized', 'No valid web session. Reload the chat page to get one (GET /api/chat/session).', {
    details: { reason },
  });
}

/** Creates the identity service over Redis. */
export function createWebIdentity(options: WebIdentityOptions): WebIdentity {
  const { redis, prefix, secret, publicUrl } = options;
  const clock = options.clock ?? (() => new Date());
  const sessions = createSessionStore({ redis, prefix, ...(options.sessionTtlMs === undefined ? {} : { ttlMs: options.sessionTtlMs }) });
  const people = new Map(options.people.map((person) => [person.id, person]));
  const secure = new URL(publicUrl).protocol === 'https:';

  // With `remembered`, a session this process knows is taken without reading Redis.
  const lookup = async (req: IncomingMessage, remembered = false): Promise<WebSession | 'absent' | 'forged' | 'unknown'> => {
    const reading = readSessionCookie(req, secret);
    if (reading.kind !== 'sid') return reading.kind;
    const session = (remembered ? sessions.known(reading.sid) : undefined) ?? (await sessions.get(reading.sid));
    if (session === undefined) return 'unknown';
    if (session.personId === undefined || people.has(session.personId)) return session;
    // The person was removed from switchboard.yaml: the browser keeps its identity, not the person.
    return { sid: session.sid, identity: session.identity, basis: COOKIE_BASIS, createdAt: session.createdAt };
  };

  const identity: WebIdentity = {
    publicUrl,
    owners: createConversationOwners({ redis, prefix }),
    async current(req) {
      const found = await lookup(req);
      return typeof found === 'string' ? undefined : found;
    },
    async require(req) {
      const found = await lookup(req);
      if (typeof found === 'string') throw unauthorized(found);
      return found;
    },
    async requirePost(req) {
      const session = await identity.require(req);
      checkSessionPost(req, { secret, sid: session.sid, publicUrl });
      return session;
    },
    async authorisePost(req) {
      const found = await lookup(req, true);
      if (typeof found === 'string') throw unauthorized(found);
      checkSessionPost(req, { secret, sid: found.sid, publicUrl });
      return { session: found, condition: sessions.conditionOf(found.sid) };
    },
    lapsed(session) {
      sessions.forget(session.sid);
      return unauthorized('unknown');
    },
    start() {
      return sessions.create({ identity: newBrowserIdentity(), basis: COOKIE_BASIS, createdAt: clock().toISOString() });
    },
    async signIn(previous, grant) {
      const keep = previous !== undefined && (previous.personId === undefined || previous.personId === grant.personId);
      const next = await sessions.create({
        identity: keep ? previous.identity : newBrowserIdentity(),
        personId: grant.personId,
        basis: grant.basis,
        createdAt: clock().toISOString(),
      });
      if (previous !== undefined) await sessions.revoke(previous.sid);
      return next;
    },
    async redeem(token) {
      const grant = await redeemSignInToken({ redis, prefix, clock }, token);
      return grant !== undefined && people.has(grant.personId) ? grant : undefined;
    },
    setCookie(res, session) {
      res.setHeader('set-cookie', sessionCookieHeader(session.sid, secret, { maxAgeMs: sessions.ttlMs, secure }));
    },
    csrfToken: (session) => csrfTokenFor(secret, session.sid),
    personOf: (session) => (session.personId === undefined ? undefined : people.get(session.personId)),
  };
  return identity;
}
