/**
 * `POST /api/chat/:conversationId/actions`: a Button of a surface the web chat shows was pressed.
 * The body is `{ id, surfaceId, sourceComponentId?, name, context? }` (see `web-action.ts`). The
 * request needs the session cookie (401), its CSRF token and this service's origin (403); the
 * conversation must be the session's (403 `not_owner`) and the surface one the service delivered to
 * it (403 `unknown_surface`), both refusals logged. The action becomes a `user-action` injection
 * from the session's `web:<identity>`; the answer is 202 `{ id, duplicate }` once it is durably
 * enqueued, 503 with `Retry-After` when it could not be, and the same `id` again is answered once.
 */

import { SwitchboardError } from '../../src/protocol/errors.ts';
import { readJsonObject, sendJson, type Route } from '../../src/runtime/http/router.ts';
import type { WebRoutesLogger } from './approvals.ts';
import { isConversationId } from './conversation-id.ts';
import type { DeliveredSurfaces } from './delivered-surfaces.ts';
import { notYourConversation } from './identity/conversation-owner.ts';
import type { WebIdentity } from './identity/web-identity.ts';
import { senderOf } from './identity/web-principal.ts';
import { normaliseWebAction } from './normalise.ts';
import { badRequest, enqueueOrRetryLater, type WebEnqueue } from './post-answers.ts';
import { readWebAction, type WebAction } from './web-action.ts';

/** Largest body read, in bytes: room for a context at its limit, however its JSON is spaced. */
const MAX_BODY_BYTES = 32 * 1024;

/** Options of {@link createWebActionRoute}. */
export interface WebActionRouteOptions {
  readonly identity: WebIdentity;
  /** The surfaces delivered to each conversation: a press on any other is refused. */
  readonly surfaces: DeliveredSurfaces;
  /** Durably enqueues an injection; resolves `duplicate: true` when its id was enqueued before. */
  readonly enqueue: WebEnqueue;
  readonly tenantId: string;
  readonly clock: () => Date;
  /** Where refused presses are logged (warn). Default: not logged. */
  readonly logger?: WebRoutesLogger;
}

/** The action of a body whose `context` may be absent (`{}`). @throws SwitchboardError `http.bad_request` naming the field. */
function readAction(body: Readonly<Record<string, unknown>>): WebAction {
  const reading = readWebAction({ ...body, context: body['context'] === undefined ? {} : body['context'] });
  if ('problem' in reading) throw badRequest(reading.problem.message, reading.problem.field);
  return reading.action;
}

function unknownSurface(conversationId: string, surfaceId: string): SwitchboardError {
  return new SwitchboardError('http.forbidden', 'This surface was not shown in this conversation, so its actions are not accepted.', {
    details: { reason: 'unknown_surface', conversationId, surfaceId },
  });
}

/** Creates the route accepting the actions of surfaces shown in the web chat page. */
export function createWebActionRoute(options: WebActionRouteOptions): Route {
  return {
    method: 'POST',
    pattern: '/api/chat/:conversationId/actions',
    async handler({ req, res, params }) {
      const session = await options.identity.requirePost(req);
      const conversationId = params['conversationId'] ?? '';
      if (!isConversationId(conversationId)) {
        throw badRequest('The conversation id must be 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-".', 'conversationId');
      }
      const action = readAction(await readJsonObject(req, MAX_BODY_BYTES));
      const sender = senderOf(session, options.identity.personOf(session)?.name);
      const facts = { conversationId, surfaceId: action.surfaceId, name: action.name, actionId: action.id, sender: sender.id };
      // A surface is only ever delivered to a conversation someone posted to, so an unowned one is
      // refused too: an action never claims a conversation.
      if (!(await options.identity.owners.owns(conversationId, session.identity))) {
        options.logger?.warn(facts, 'web action refused: the conversation is not the sender\'s');
        throw notYourConversation(conversationId);
      }
      if (!(await options.surfaces.has(conversationId, action.surfaceId))) {
        options.logger?.warn(facts, 'web action refused: the surface was not delivered to this conversation');
        throw unknownSurface(conversationId, action.surfaceId);
      }
      const injection = normaliseWebAction({ conversationId, action, sender, tenantId: options.tenantId, receivedAt: options.clock().toISOString() });
      const enqueued = await enqueueOrRetryLater(res, options.enqueue, injection, 'The action could not be queued. Send it again with the same id.');
      if (enqueued === undefined) return;
      sendJson(res, 202, { id: injection.id, duplicate: enqueued.duplicate });
    },
  };
}
