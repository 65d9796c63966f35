/**
 * The web chat's normaliser: a message typed in the page, already read and checked by the message
 * route, becomes an {@link Injection}. The id is derived from the page's own message id, so a
 * retried POST is the same injection and is dropped at enqueue.
 */
import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Injection, Sender } from '../../src/runtime/injection.ts';
import { isIsoDateTime, isNonEmptyString, isSender, uncheckedFields } from '../kit/event-checks.ts';
import { isConversationId } from './conversation-id.ts';

/** A message from the web chat page, as the message route read it. */
export interface WebMessageEvent {
  readonly conversationId: string;
  readonly text: string;
  /** The page's id of the message (1 to 100 of `A-Za-z0-9_-`); a random one when absent. */
  readonly clientMessageId?: string;
  /** Who sent it, as the route established it. */
  readonly sender: Sender;
  readonly tenantId: string;
  /** ISO 8601. */
  readonly receivedAt: string;
}

const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_-]{1,100}$/;

function isWebMessageEvent(value: unknown): value is WebMessageEvent {
  const event = uncheckedFields(value);
  if (event === undefined) return false;
  const { conversationId, clientMessageId } = event;
  return (
    typeof conversationId === 'string' &&
    isConversationId(conversationId) &&
    typeof event['text'] === 'string' &&
    isNonEmptyString(event['tenantId']) &&
    isIsoDateTime(event['receivedAt']) &&
    isSender(event['sender']) &&
    (clientMessageId === undefined || (typeof clientMessageId === 'string' && CLIENT_MESSAGE_ID.test(clientMessageId)))
  );
}

/** The sender's own fields only: nothing else the event's object carried reaches the injection. */
function senderOf(sender: Sender): Sender {
  const { id, verified, displayName, personId, basis } = sender;
  return {
    id,
    verified,
    ...(displayName === undefined ? {} : { displayName }),
    ...(personId === undefined ? {} : { personId }),
    ...(basis === undefined ? {} : { basis }),
  };
}

/**
 * Turns a web chat message into an injection (`web:<conversationId>:<clientMessageId>`).
 *
 * @throws SwitchboardError `channel.invalid` when `event` is not a {@link WebMessageEvent} (every
 *   field checked: the conversation and message ids' alphabets, the sender's fields, `receivedAt`
 *   an ISO 8601 date-time).
 */
export function normaliseWebMessage(event: unknown): Injection {
  if (!isWebMessageEvent(event)) {
    throw new SwitchboardError('channel.invalid', 'Not a web chat message event.', { details: { channel: 'web' } });
  }
  return {
    id: `web:${event.conversationId}:${event.clientMessageId ?? randomUUID()}`,
    kind: 'message',
    channel: 'web',
    tenantId: event.tenantId,
    conversationKey: event.conversationId,
    sender: senderOf(event.sender),
    text: event.text,
    replyTo: { channel: 'web', address: event.conversationId },
    receivedAt: event.receivedAt,
  };
}
