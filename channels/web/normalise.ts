/**
 * The web chat's normaliser: a message typed in the page, already read and checked by the message
 * route, becomes an {@link Injection}. The id is derived from the page's own message id, so a
 * retried POST is the same injection and is dropped at enqueue.
 */
import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Injection, Sender } from '../../src/runtime/injection.ts';
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

function isWebMessageEvent(event: unknown): event is WebMessageEvent {
  if (typeof event !== 'object' || event === null) return false;
  const candidate = event as Partial<Record<keyof WebMessageEvent, unknown>>;
  return (
    typeof candidate.conversationId === 'string' &&
    isConversationId(candidate.conversationId) &&
    typeof candidate.text === 'string' &&
    typeof candidate.tenantId === 'string' &&
    typeof candidate.receivedAt === 'string' &&
    typeof candidate.sender === 'object' &&
    candidate.sender !== null &&
    (candidate.clientMessageId === undefined || typeof candidate.clientMessageId === 'string')
  );
}

/**
 * Turns a web chat message into an injection (`web:<conversationId>:<clientMessageId>`).
 *
 * @throws SwitchboardError `channel.invalid` when `event` is not a {@link WebMessageEvent}.
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
    sender: event.sender,
    text: event.text,
    replyTo: { channel: 'web', address: event.conversationId },
    receivedAt: event.receivedAt,
  };
}
