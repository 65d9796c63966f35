/**
 * Where the conversation index lives in Redis, and what a settling turn tells it. The index is
 * written inside the session store's own begin and finish scripts (`conversation-index-lua.ts`),
 * so keeping it costs a turn three commands and no round trip of its own; it is read by
 * `conversation-index.ts`.
 *
 * Keys (`<p>` the prefix): `<p>:conv:idx`, a sorted set of session ids by the time their last turn
 * started (ms since the epoch), and `<p>:conv:sum`, a hash of one JSON summary per session id.
 * Both are bounded: at most `maxConversations` sessions (the oldest dropped when a new one comes),
 * none idle longer than `maxIdleMs` (dropped when a new conversation comes or on a search).
 */

/** The keys and bounds of the index. */
export interface ConversationIndexLayout {
  /** The sorted set of session ids by last turn start. */
  readonly indexKey: string;
  /** The hash of summaries by session id. */
  readonly summaryKey: string;
  /** Most conversations kept; the oldest go first. */
  readonly maxConversations: number;
  /** A conversation without a new turn for this long is dropped, in ms. */
  readonly maxIdleMs: number;
}

/** Default of {@link ConversationIndexLayout.maxConversations}: 50 000. */
export const DEFAULT_MAX_CONVERSATIONS = 50_000;

/** Default of {@link ConversationIndexLayout.maxIdleMs}: 30 days. */
export const DEFAULT_MAX_IDLE_MS = 30 * 86_400_000;

/** The layout under `prefix`, with the defaults unless given. */
export function conversationIndexLayout(prefix: string, maxConversations = DEFAULT_MAX_CONVERSATIONS, maxIdleMs = DEFAULT_MAX_IDLE_MS): ConversationIndexLayout {
  return { indexKey: `${prefix}:conv:idx`, summaryKey: `${prefix}:conv:sum`, maxConversations, maxIdleMs };
}

/** What a settling turn adds to its conversation's summary. */
export interface ConversationSettlement {
  readonly sessionId: string;
  readonly turnId: string;
  /** When it settled, ms since the epoch (never before the turn started). */
  readonly at: number;
  /** `failed` when the turn settled in error. */
  readonly state: 'settled' | 'failed';
  /** The actor that answered last. */
  readonly actor: string;
  /** Channel and address of the conversation (where answers go). */
  readonly channel: string;
  readonly address: string;
  /** The sender of the turn's first message, as the channel knows them. */
  readonly senderId?: string;
  /** The configured person that sender is, when known. */
  readonly personId?: string;
  /** Tokens of the turn's model calls (input, output, cache reads and writes together). */
  readonly tokens: number;
  /** Estimated cost of the turn's model calls, in whole micro-dollars. */
  readonly costMicros: number;
  /** The last text of the turn (its answer, else the person's message), at most 200 characters. */
  readonly lastText?: string;
}

/** The settlement as the finish script reads it (short names, absent fields left out). */
export function settlementArgument(settlement: ConversationSettlement): string {
  const { sessionId, turnId, at, state, actor, channel, address, senderId, personId, tokens, costMicros, lastText } = settlement;
  return JSON.stringify({
    sid: sessionId, turn: turnId, at, state, actor, ch: channel, addr: address, tokens, micros: costMicros,
    ...(senderId === undefined ? {} : { sender: senderId }),
    ...(personId === undefined ? {} : { person: personId }),
    ...(lastText === undefined ? {} : { last: lastText }),
  });
}
