/**
 * `POST /admin/api/invites` `{ personId }` → 201 `{ personId, url, expiresAt }`: an operator issues
 * a one-time sign-in link for a configured person (basis `invite by operator`) and gives it to them.
 * Mounted by the service behind the operator pages' authorisation, which it passes in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { readJsonObject, sendJson, type Route } from '../../../src/runtime/http/router.ts';
import { checkOrigin } from './request-guard.ts';
import { issueSignInLink, type SignInLinkOptions } from './sign-in-links.ts';
import type { WebPerson } from './web-identity.ts';

/** Options of {@link createInviteRoute}. */
export interface InviteRouteOptions {
  /** Where links are kept and the base of their URLs. */
  readonly links: SignInLinkOptions;
  /** The app's people; only they can be invited. */
  readonly people: readonly WebPerson[];
  /** The operator check: answers 401 / 403 itself and returns `false` when the request may not invite. */
  readonly authorize: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/** Creates the operator's invite route. */
export function createInviteRoute(options: InviteRouteOptions): Route {
  return {
    method: 'POST',
    pattern: '/admin/api/invites',
    async handler({ req, res }) {
      if (!options.authorize(req, res)) return;
      checkOrigin(req, options.links.publicUrl);
      const personId = (await readJsonObject(req, 4096))['personId'];
      if (typeof personId !== 'string') {
        throw new SwitchboardError('http.bad_request', '"personId" must be the id of a person in switchboard.yaml.', { details: { field: 'personId' } });
      }
      if (!options.people.some((person) => person.id === personId)) {
        throw new SwitchboardError('http.not_found', `No person with id ${JSON.stringify(personId)} in switchboard.yaml.`, { details: { field: 'personId' } });
      }
      const link = await issueSignInLink(options.links, personId, 'invite by operator');
      res.setHeader('cache-control', 'no-store');
      sendJson(res, 201, { personId, url: link.url, expiresAt: link.expiresAt });
    },
  };
}
