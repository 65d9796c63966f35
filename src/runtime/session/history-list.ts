/**
 * The conversation history as Redis keeps it: a list holding one message's JSON per element, so
 * that a turn appends the messages it added (and drops from the front what the token budget cut)
 * instead of writing the whole history again.
 */
import type { ModelMessage } from '../model/model-types.ts';

/** A session's history as this process last read or wrote it. */
export interface KnownHistory {
  /** Id of the turn that wrote it (`''` when no turn has yet). */
  readonly version: string;
  readonly messages: readonly ModelMessage[];
  /** Length of each message's JSON, in characters, in order. */
  readonly sizes: readonly number[];
  /** True when Redis holds it in an earlier form, so the next write must store it whole. */
  readonly rewrite?: boolean;
}

/** How the stored list becomes the new history. */
export interface HistoryChange {
  /** How many messages to remove from the front. */
  readonly drop: number;
  /** New JSON of the first message kept, when the trimming rewrote it. */
  readonly first?: string;
  /** JSON of each message to add at the end. */
  readonly append: readonly string[];
  /** Length of each message's JSON in the new history, in characters. */
  readonly sizes: readonly number[];
}

/** Length of the JSON of a whole list, in characters, from its elements' lengths (brackets and commas added). */
export function listChars(sizes: readonly number[]): number {
  let total = 2 + Math.max(0, sizes.length - 1);
  for (const size of sizes) total += size;
  return total;
}

/** The change that stores `next` whole: everything dropped, everything appended. */
export function wholeHistory(next: readonly ModelMessage[], dropped: number): HistoryChange {
  const append = next.map((message) => JSON.stringify(message));
  return { drop: dropped, append, sizes: append.map((json) => json.length) };
}

/** What {@link noteAppended} recorded of a list: the list it extends, and the JSON of each message it adds. */
interface Appended {
  readonly base: readonly ModelMessage[];
  readonly json: readonly string[];
}

/** Lists known to be another list with messages added at the end (lists are never changed once made). */
const appendedLists = new WeakMap<readonly ModelMessage[], Appended>();

/**
 * Records that `next` is `base` followed by messages whose JSON is `appendedJson`, in order: the
 * {@link historyChange} from `base` to `next` then neither compares the two lists message by
 * message nor serialises the added messages again. A conversation's history runs to hundreds of
 * messages, and a turn adds a few.
 */
export function noteAppended(next: readonly ModelMessage[], base: readonly ModelMessage[], appendedJson: readonly string[]): void {
  if (next.length === base.length + appendedJson.length) appendedLists.set(next, { base, json: appendedJson });
}

/**
 * The smallest change turning `base` into `next` when `next` continues it (the same message
 * objects, some dropped from the front, perhaps the first kept one rewritten, new ones after);
 * otherwise the whole of `next`. Messages are compared by identity: the turn runner keeps the
 * objects it was given and adds new ones.
 */
export function historyChange(base: KnownHistory, next: readonly ModelMessage[]): HistoryChange {
  const appended = appendedLists.get(next);
  if (appended !== undefined && appended.base === base.messages) {
    appendedLists.delete(next);
    return { drop: 0, append: appended.json, sizes: base.sizes.concat(appended.json.map((json) => json.length)) };
  }
  const kept = keptPart(base.messages, next);
  if (kept === undefined) return wholeHistory(next, base.messages.length);
  const keptCount = base.messages.length - kept.drop;
  const append = next.slice(keptCount).map((message) => JSON.stringify(message));
  const sizes = [...base.sizes.slice(kept.drop), ...append.map((json) => json.length)];
  if (!kept.firstRewritten) return { drop: kept.drop, append, sizes };
  const first = JSON.stringify(next[0]);
  sizes[0] = first.length;
  return { drop: kept.drop, first, append, sizes };
}

/** Where `next` takes up `base`: how many messages it drops from its front, and whether it rewrote the first it keeps. */
function keptPart(base: readonly ModelMessage[], next: readonly ModelMessage[]): { drop: number; firstRewritten: boolean } | undefined {
  if (base.length === 0) return undefined;
  const start = next.length === 0 ? -1 : base.indexOf(next[0] as ModelMessage);
  if (start >= 0 && continues(base, next, start, 0)) return { drop: start, firstRewritten: false };
  const second = next.length < 2 ? -1 : base.indexOf(next[1] as ModelMessage);
  if (second >= 1 && continues(base, next, second - 1, 1)) return { drop: second - 1, firstRewritten: true };
  return undefined;
}

/** Whether `next[from..]` repeats every message of `base` from `offset + from` to its end. */
function continues(base: readonly ModelMessage[], next: readonly ModelMessage[], offset: number, from: number): boolean {
  for (let index = from; offset + index < base.length; index += 1) {
    if (index >= next.length || base[offset + index] !== next[index]) return false;
  }
  return true;
}
