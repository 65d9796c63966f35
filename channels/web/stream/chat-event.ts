/**
 * The events of the web chat channel: what is stored per conversation and sent to the page over
 * Server-Sent Events.
 */

import type { Part } from '../../../src/protocol/parts/part.ts';

/** One part of an actor's output, carrying the turn state it was emitted with. */
interface WebChatPartEvent {
  readonly type: 'part';
  readonly turnId: string;
  /** Unique within the turn; the page drops a second part with the same `turnId` and `partId`. */
  readonly partId: string;
  /** The turn state declared with this part (`awaiting`, `complete`, `clarifying`, ...). */
  readonly turnState: string;
  /** The actor that produced the part. */
  readonly actor?: string;
  readonly part: Part;
  /**
   * The part's text as safe HTML (the kit's web renderer: the model's markdown, with raw HTML
   * escaped and only http(s)/mailto links), for parts whose text the page shows.
   */
  readonly html?: string;
}

/** A change of a turn's state that came without a part (e.g. the turn settling). */
interface WebChatTurnEvent {
  readonly type: 'turn';
  readonly turnId: string;
  readonly turnState: string;
  readonly actor?: string;
}

/** The person's own message, echoed so every open tab of the conversation shows it. */
export interface WebChatMessageEvent {
  readonly type: 'message';
  /** The injection id of the message (`web:<conversationId>:<clientMessageId>`). */
  readonly messageId: string;
  readonly text: string;
  /** The channel identity of the sender (`web:<conversationId>`). */
  readonly sender: string;
}

/**
 * An approval shown in this conversation was decided or expired. Appended by the runtime after the
 * decision so every open page turns the approval card into its final state.
 */
interface WebChatApprovalEvent {
  readonly type: 'approval';
  readonly approvalId: string;
  readonly status: 'granted' | 'denied' | 'expired';
  /** Who decided, as a readable name or channel address (absent for an expiry). */
  readonly decidedBy?: string;
  /** ISO 8601 time of the decision or expiry. */
  readonly decidedAt?: string;
}

/** Everything a web chat conversation stream holds. */
export type WebChatEvent = WebChatPartEvent | WebChatTurnEvent | WebChatMessageEvent | WebChatApprovalEvent;

/** The outcome of {@link checkWebChatEvent}. */
export type WebChatEventCheck =
  | { readonly ok: true; readonly event: WebChatEvent }
  | { readonly ok: false; readonly problem: string };

type Fields = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function checkPart(value: unknown): string | undefined {
  if (!isObject(value)) return 'part must be an object';
  const metadata = value['metadata'];
  if (!isObject(metadata) || !nonEmptyString(metadata['partType'])) return 'part.metadata.partType must be a non-empty string';
  if (value['text'] !== undefined && typeof value['text'] !== 'string') return 'part.text must be a string';
  if (value['data'] !== undefined && !isObject(value['data'])) return 'part.data must be an object';
  return undefined;
}

function checkCommon(value: Fields, names: readonly string[]): string | undefined {
  for (const name of names) {
    if (!nonEmptyString(value[name])) return `${name} must be a non-empty string`;
  }
  if (value['actor'] !== undefined && typeof value['actor'] !== 'string') return 'actor must be a string';
  return undefined;
}

const APPROVAL_STATUSES: readonly unknown[] = ['granted', 'denied', 'expired'];

function checkApproval(value: Fields): string | undefined {
  if (!nonEmptyString(value['approvalId'])) return 'approvalId must be a non-empty string';
  if (!APPROVAL_STATUSES.includes(value['status'])) return 'status must be "granted", "denied" or "expired"';
  if (value['decidedBy'] !== undefined && !nonEmptyString(value['decidedBy'])) return 'decidedBy must be a non-empty string';
  if (value['decidedAt'] !== undefined && !nonEmptyString(value['decidedAt'])) return 'decidedAt must be a non-empty string';
  return undefined;
}

function problemOf(value: unknown): string | undefined {
  if (!isObject(value)) return 'the event must be an object';
  switch (value['type']) {
    case 'part':
      return checkCommon(value, ['turnId', 'partId', 'turnState']) ?? checkPart(value['part']);
    case 'turn':
      return checkCommon(value, ['turnId', 'turnState']);
    case 'message':
      if (!nonEmptyString(value['messageId']) || !nonEmptyString(value['sender'])) return 'messageId and sender must be non-empty strings';
      return typeof value['text'] === 'string' ? undefined : 'text must be a string';
    case 'approval':
      return checkApproval(value);
    default:
      return 'type must be "part", "turn", "message" or "approval"';
  }
}

/**
 * Checks that an untrusted value (a delivery payload, a stored entry) has the shape of a
 * {@link WebChatEvent}. Extra fields are kept as they are.
 */
export function checkWebChatEvent(value: unknown): WebChatEventCheck {
  const problem = problemOf(value);
  return problem === undefined ? { ok: true, event: value as WebChatEvent } : { ok: false, problem };
}
