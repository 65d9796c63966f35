/**
 * `POST /api/chat/:conversationId/messages`: a message typed in the web chat. The request needs the
 * session cookie (401), its CSRF token and this service's origin (403), and the conversation must
 * be the session's or nobody's yet (the first post claims it; 403 otherwise). The sender is the
 * session's `web:<identity>`, verified, with its person when signed in. A session this process
 * already knows is not read again: the accept checks in its own script that the session is still
 * there (renewing it), and a revoked or expired one is answered 401 with nothing stored. It is answered 202
 * only after the injection was durably enqueued; then the message is echoed into the
 * conversation's stream so every open tab shows it. The answer is `{ id, duplicate }` (plus
 * `echoed: false` in the rare case the echo could not be stored); a failed enqueue is 503 with
 * `Retry-After`, and sending the same id again is answered once.
 */

import type { ServerResponse } from 'node:http';
import type { Injection } from '../../src/runtime/injection.ts';
import type { AcceptCondition } from '../../src/runtime/session/session-store.ts';
import { readJsonObject, sendJson, type Route } from '../../src/runtime/http/router.ts';
import { isConversationId } from './conversation-id.ts';
import { normaliseWebMessage } from './normalise.ts';
import { badRequest, enqueueOrRetryLater, type WebEnqueue } from './post-answers.ts';
import type { EchoOrder } from './echo-order.ts';
import type { WebChatMessageEvent } from './stream/chat-event.ts';
import type { WebEventStore } from './stream/event-store.ts';
import type { WebIdentity } from './identity/web-identity.ts';
import { senderOf } from './identity/web-principal.ts';

/** Longest message accepted after trimming, in UTF-16 code units (as the browser's `maxlength` counts). */
const MAX_MESSAGE_CHARS = 8000;

const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_-]{1,100}$/;
const MAX_BODY_BYTES = 64 * 1024;

/** Options of {@link createWebMessageRoute}. */
export interface WebMessageRouteOptions {
  readonly store: WebEventStore;
  readonly identity: WebIdentity;
  /** Durably enqueues an injection while its condition holds; see {@link WebEnqueue}. */
  readonly enqueue: WebEnqueue;
  readonly tenantId: string;
  readonly clock: () => Date;
  /** Where the echo is noted as owed until it was sent (see `echo-order.ts`). Default: not noted. */
  readonly echoes?: EchoOrder;
}

function readMessage(body: Readonly<Record<string, unknown>>): { text: string; clientId: string | undefined } {
  const rawText = body['text'];
  if (typeof rawText !== 'string') throw badRequest('"text" must be a string.', 'text');
  const text = rawText.trim();
  if (text.length === 0) throw badRequest('"text" is empty.', 'text');
  if (text.length > MAX_MESSAGE_CHARS) {
    throw badRequest(`"text" has ${text.length} characters; at most ${MAX_MESSAGE_CHARS} are allowed.`, 'text');
  }
  const rawId = body['id'];
  if (rawId !== undefined && (typeof rawId !== 'string' || !CLIENT_MESSAGE_ID.test(rawId))) {
    throw badRequest('"id" must be 1 to 100 characters of A-Z, a-z, 0-9, "_" and "-".', 'id');
  }
  return { text, clientId: rawId };
}

/** What the message's enqueue and echo came to (see {@link enqueueAndEcho}). */
type Enqueued = { readonly duplicate: boolean; readonly echoed: Promise<boolean> } | 'lapsed' | undefined;

/**
 * Enqueues the message while `condition` holds, then sends its echo into the conversation
 * (idempotent on the injection id: a retried POST echoes it once); `lapsed` when the session was
 * gone (nothing stored, no echo); `undefined` when the enqueue failed and 503 was answered. Until
 * the echo was sent, deliveries to the conversation wait for it (see `echo-order.ts`).
 */
async function enqueueAndEcho(
  options: WebMessageRouteOptions,
  res: ServerResponse,
  message: { readonly injection: Injection; readonly condition: AcceptCondition },
  conversationId: string,
  echo: WebChatMessageEvent,
): Promise<Enqueued> {
  const { injection, condition } = message;
  const paid = options.echoes?.owe(conversationId);
  try {
    const enqueue = (queued: Injection): ReturnType<WebEnqueue> => options.enqueue(queued, condition);
    const enqueued = await enqueueOrRetryLater(res, enqueue, injection, 'The message could not be queued. Send it again with the same id.');
    if (enqueued === undefined) return undefined;
    if (enqueued.lapsed === true) return 'lapsed';
    const echoed = options.store.append(conversationId, echo, `echo:${injection.id}`).then(() => true, () => false);
    return { duplicate: enqueued.duplicate, echoed };
  } finally {
    paid?.();
  }
}

/** Creates the route accepting messages from the web chat page. */
export function createWebMessageRoute(options: WebMessageRouteOptions): Route {
  return {
    method: 'POST',
    pattern: '/api/chat/:conversationId/messages',
    async handler({ req, res, params }) {
      const conversationId = params['conversationId'] ?? '';
      // Read in the same round trip as the session: the owner check then needs none of its own.
      const owner = isConversationId(conversationId) ? options.identity.owners.read(conversationId) : undefined;
      owner?.catch(() => undefined);
      const { session, condition } = await options.identity.authorisePost(req);
      if (!isConversationId(conversationId)) {
        throw badRequest('The conversation id must be 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-".', 'conversationId');
      }
      const { text, clientId } = readMessage(await readJsonObject(req, MAX_BODY_BYTES));
      await options.identity.owners.claim(conversationId, session.identity, owner);
      const sender = senderOf(session, options.identity.personOf(session)?.name);
      const senderId = sender.id;
      const injection = normaliseWebMessage({
        conversationId,
        text,
        ...(clientId === undefined ? {} : { clientMessageId: clientId }),
        sender,
        tenantId: options.tenantId,
        receivedAt: options.clock().toISOString(),
      });
      const enqueued = await enqueueAndEcho(options, res, { injection, condition }, conversationId, { type: 'message', messageId: injection.id, text, sender: senderId });
      if (enqueued === undefined) return;
      if (enqueued === 'lapsed') throw options.identity.lapsed(session);
      // The message is accepted either way; a failed echo only means other tabs do not show it.
      const echoed = await enqueued.echoed;
      sendJson(res, 202, echoed ? { id: injection.id, duplicate: enqueued.duplicate } : { id: injection.id, duplicate: enqueued.duplicate, echoed });
    },
  };
}
