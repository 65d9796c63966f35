/**
 * `GET /api/chat/session`: the page's first call. Without a valid cookie it starts a session (a
 * new server-issued identity) and sets `sb_session`; with one it refreshes the cookie. Answers
 * `{ identity, person?: { id, name }, csrfToken }`.
 */
import { sendJson, type Route } from '../../../src/runtime/http/router.ts';
import type { WebIdentity } from './web-identity.ts';

/** The answer of `GET /api/chat/session`. */
export interface SessionAnswer {
  /** The browser identity (`b_…`); the sender of its messages is `web:<identity>`. */
  readonly identity: string;
  /** The configured person the browser signed in as, if any. */
  readonly person?: { readonly id: string; readonly name: string };
  /** Send it in `x-csrf-token` on every POST. */
  readonly csrfToken: string;
}

/** Creates the session route. */
export function createSessionRoute(identity: WebIdentity): Route {
  return {
    method: 'GET',
    pattern: '/api/chat/session',
    async handler({ req, res }) {
      const session = (await identity.current(req)) ?? (await identity.start());
      identity.setCookie(res, session);
      const person = identity.personOf(session);
      const answer: SessionAnswer = {
        identity: session.identity,
        ...(person === undefined ? {} : { person: { id: person.id, name: person.name } }),
        csrfToken: identity.csrfToken(session),
      };
      res.setHeader('cache-control', 'no-store');
      sendJson(res, 200, answer);
    },
  };
}
