/**
 * What the web chat delivered, per message: the fake model answers `re <id> <id>…` (and
 * `… paid` after an approval), so each response part names the messages it answers.
 */
import type { StoredWebChatEvent } from '../channels/web/stream/event-store.ts';
import { appendedAt } from './streams.ts';

/** The answers found in a run's conversation streams. */
export interface DeliveredAnswers {
  /** How many response parts named each message id. */
  readonly count: ReadonlyMap<string, number>;
  /** When the first answer naming each message id was appended, ms since the epoch. */
  readonly firstAt: ReadonlyMap<string, number>;
  /** Per conversation, the message ids in the order their answers were delivered (repeats included). */
  readonly order: ReadonlyMap<string, readonly string[]>;
  /** Per conversation, how many `error` parts it got. */
  readonly errorParts: ReadonlyMap<string, number>;
  /** Turns that delivered something but never settled (no `complete`, `clarifying` or `error` turn event). */
  readonly unsettledTurns: readonly string[];
}

const SETTLED = new Set(['complete', 'clarifying', 'error']);

/** Reads the answers out of every conversation's events. */
export function readAnswers(streams: ReadonlyMap<string, readonly StoredWebChatEvent[]>): DeliveredAnswers {
  const count = new Map<string, number>();
  const firstAt = new Map<string, number>();
  const order = new Map<string, string[]>();
  const errorParts = new Map<string, number>();
  const unsettledTurns: string[] = [];
  for (const [conversation, events] of streams) {
    const sequence: string[] = [];
    const turns = new Map<string, boolean>();
    for (const stored of events) {
      const { event } = stored;
      if (event.type === 'turn') turns.set(event.turnId, (turns.get(event.turnId) ?? false) || SETTLED.has(event.turnState));
      if (event.type !== 'part') continue;
      if (!turns.has(event.turnId)) turns.set(event.turnId, false);
      const partType = event.part.metadata.partType;
      if (partType === 'error') errorParts.set(conversation, (errorParts.get(conversation) ?? 0) + 1);
      if (partType !== 'response') continue;
      for (const id of idsOf(event.part.text ?? '')) {
        sequence.push(id);
        count.set(id, (count.get(id) ?? 0) + 1);
        if (!firstAt.has(id)) firstAt.set(id, appendedAt(stored));
      }
    }
    order.set(conversation, sequence);
    for (const [turnId, settled] of turns) if (!settled) unsettledTurns.push(`${conversation}/${turnId}`);
  }
  return { count, firstAt, order, errorParts, unsettledTurns };
}

/** The message ids a response names: `re a b c` or `re a b c paid`. */
function idsOf(text: string): string[] {
  if (!text.startsWith('re ')) return [];
  return text.slice('re '.length).split(' ').filter((word) => word !== '' && word !== 'paid');
}
