/**
 * The web chat's normalisers: a message typed in the page, or an action of a surface it shows (a
 * Button pressed), already read and checked by its route, becomes an {@link Injection}. The id is
 * derived from the page's own id of the message or press, so a retried POST is the same injection
 * and is dropped at enqueue.
 */
import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { actionContent, typedContent } from '../../src/runtime/content-trust.ts';
import type { Injection, Sender, UserActionData } from '../../src/runtime/injection.ts';
import { isIsoDateTime, isNonEmptyString, isSender, uncheckedFields } from '../kit/event-checks.ts';
import { isConversationId } from './conversation-id.ts';
import { isWebAction, type WebAction } from './web-action.ts';

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
 * Turns a web chat message into an injection (`web:<conversationId>:<clientMessageId>`), its
 * content `typed` (trusted when the sender is verified, see `content-trust.ts`).
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
    content: typedContent(event.sender),
    replyTo: { channel: 'web', address: event.conversationId },
    receivedAt: event.receivedAt,
  };
}

/** An action of a surface in the web chat page, as the action route read it. */
export interface WebActionEvent {
  readonly conversationId: string;
  /** The action, its fields checked by `readWebAction` (`web-action.ts`). */
  readonly action: WebAction;
  /** Who pressed it, as the route established it. */
  readonly sender: Sender;
  readonly tenantId: string;
  /** ISO 8601. */
  readonly receivedAt: string;
}

function isWebActionEvent(value: unknown): value is WebActionEvent {
  const event = uncheckedFields(value);
  if (event === undefined) return false;
  const { conversationId } = event;
  return (
    typeof conversationId === 'string' &&
    isConversationId(conversationId) &&
    isWebAction(event['action']) &&
    isNonEmptyString(event['tenantId']) &&
    isIsoDateTime(event['receivedAt']) &&
    isSender(event['sender'])
  );
}

/**
 * Turns a web chat action into a `user-action` injection (`web:<conversationId>:action:<action id>`,
 * which no message id can be: those have no `:` after the conversation). Its `data` is the action's
 * {@link UserActionData}; its `text` the short line `[action] <name>`; its content `ui-action`.
 *
 * @throws SwitchboardError `channel.invalid` when `event` is not a {@link WebActionEvent} (every
 *   field checked, the action's by the rules of `web-action.ts`).
 */
export function normaliseWebAction(event: unknown): Injection {
  if (!isWebActionEvent(event)) {
    throw new SwitchboardError('channel.invalid', 'Not a web chat action event.', { details: { channel: 'web' } });
  }
  const { action } = event;
  const data: UserActionData = {
    surfaceId: action.surfaceId,
    ...(action.sourceComponentId === undefined ? {} : { sourceComponentId: action.sourceComponentId }),
    name: action.name,
    context: action.context,
  };
  return {
    id: `web:${event.conversationId}:action:${action.id}`,
    kind: 'user-action',
    channel: 'web',
    tenantId: event.tenantId,
    conversationKey: event.conversationId,
    sender: senderOf(event.sender),
    text: `[action] ${action.name}`,
    content: actionContent(event.sender),
    data: { ...data },
    replyTo: { channel: 'web', address: event.conversationId },
    receivedAt: event.receivedAt,
  };
}
