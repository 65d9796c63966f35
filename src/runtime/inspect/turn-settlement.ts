/**
 * What a settling turn tells the conversation index (see `conversation-index-layout.ts`), from
 * its record and the injection that started it.
 */
import type { Injection } from '../injection.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { ConversationSettlement } from './conversation-index-layout.ts';

/** Longest `lastText` kept, in characters. */
const LAST_TEXT_CHARS = 200;

/** The turn's last text: its last part with text (what the person was told), else the last message it took. */
function lastTextOf(record: TurnRecord, inbox: readonly Injection[]): string | undefined {
  const told = [...record.emitted].reverse().find((emitted) => typeof emitted.part.text === 'string' && emitted.part.text.trim() !== '')?.part.text;
  const text = told ?? inbox.at(-1)?.text;
  if (text === undefined || text === '') return undefined;
  return text.length > LAST_TEXT_CHARS ? `${text.slice(0, LAST_TEXT_CHARS - 1)}…` : text;
}

/**
 * The settlement of `record` in `turnState` at `at` (ms; never before the turn started, so the
 * index does not take it for still running): `failed` for `error`, the turn's spending, its
 * destination and sender, and its last text with `redactText` applied.
 */
export function turnSettlement(
  record: TurnRecord,
  inbox: readonly Injection[],
  turnState: string,
  at: number,
  redactText: (text: string) => string = (text) => text,
): ConversationSettlement {
  const first = inbox[0];
  const lastText = lastTextOf(record, inbox);
  return {
    sessionId: record.sessionId,
    turnId: record.turnId,
    at: Math.max(at, Date.parse(record.startedAt) || 0),
    state: turnState === 'error' ? 'failed' : 'settled',
    actor: record.actor,
    channel: record.replyTo.channel,
    address: record.replyTo.address,
    ...(first === undefined ? {} : { senderId: first.sender.id }),
    ...(first?.sender.personId === undefined ? {} : { personId: first.sender.personId }),
    tokens: record.spent?.tokens ?? 0,
    costMicros: record.spent?.costMicros ?? 0,
    ...(lastText === undefined ? {} : { lastText: redactText(lastText) }),
  };
}
