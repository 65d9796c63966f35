/**
 * A peer's A2A message as an injection on the `a2a` channel: the peer's context is the
 * conversation, the task is where the answer goes.
 */
import type { Message } from '@a2a-js/sdk';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { outsideContent } from '../../src/runtime/content-trust.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { messageText } from './a2a-parts.ts';

/** How a peer reached us; picks nothing but is kept for the audit trail and metrics. */
export type PeerTransport = 'jsonrpc' | 'rest' | 'mcp' | 'webhook';

/** What the A2A route knows of one incoming message. */
export interface PeerMessage {
  readonly peer: { readonly id: string; readonly name: string; readonly actor?: string };
  readonly message: Message;
  readonly taskId: string;
  readonly contextId: string;
  readonly transport: PeerTransport;
  /** ISO 8601 time it was received. */
  readonly receivedAt: string;
}

/** The largest text a peer's message may carry, in characters (about 100 KB). */
export const MAX_PEER_TEXT_CHARS = 100_000;

/**
 * The injection of a peer's message: id `a2a:<peer>:<messageId>` (a peer's retry of the same
 * message is dropped at enqueue), conversation `<peer>:<contextId>` (peers never share one), the
 * peer as a verified sender (its bearer token), and the reply going to the task. Its content is
 * outside content (`peer`, or `webhook` for `POST /api/turns`), never trusted: a peer's words are
 * data for the model, not instructions.
 *
 * @throws SwitchboardError `channel.invalid` for a message without text or data, or over
 *   {@link MAX_PEER_TEXT_CHARS}.
 */
export function normalisePeerMessage(input: PeerMessage, tenantId: string): Injection {
  const { peer, message, taskId, contextId } = input;
  const text = messageText(message.parts);
  if (text.trim() === '') throw new SwitchboardError('channel.invalid', 'The message has no text or data part.', { details: { messageId: message.messageId } });
  if (text.length > MAX_PEER_TEXT_CHARS) {
    throw new SwitchboardError('channel.invalid', `The message is over ${String(MAX_PEER_TEXT_CHARS)} characters.`, { details: { messageId: message.messageId, chars: text.length } });
  }
  return {
    id: `a2a:${peer.id}:${message.messageId}`,
    kind: 'message',
    channel: 'a2a',
    tenantId,
    conversationKey: `${peer.id}:${contextId}`,
    sender: { id: `peer:${peer.id}`, displayName: peer.name, verified: true, basis: `bearer token of peer ${peer.id}`, agent: true },
    text,
    content: outsideContent(input.transport === 'webhook' ? 'webhook' : 'peer'),
    data: { origin: 'peer', peerId: peer.id, taskId, contextId, messageId: message.messageId, transport: input.transport },
    ...(peer.actor === undefined ? {} : { actor: peer.actor }),
    replyTo: { channel: 'a2a', address: contextId, thread: { taskId, peerId: peer.id } },
    receivedAt: input.receivedAt,
  };
}
