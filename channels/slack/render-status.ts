/**
 * The assistant thread's status ("<app> is looking up flights…"): set from `ack`, `thinking` and
 * `progress` parts, cleared when the turn settles. Slack shows it after the app's name, so each
 * status is a verb phrase starting with `is`.
 */
import type { Part } from '../../src/protocol/parts/part.ts';
import { CANONICAL_TURN_STATES } from '../../src/protocol/turn-states/turn-state-registry.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { oneLine } from '../kit/approvals/format-value.ts';
import { isRecord, stringField } from '../kit/render/json-fields.ts';
import { MAX_STATUS_CHARS, type SlackPayload } from './slack-payload.ts';
import { whereOf } from './render-where.ts';

/** Part types shown as the thread's status rather than as messages. */
export const STATUS_PART_TYPES: ReadonlySet<string> = new Set(['ack', 'thinking', 'progress']);

/** The turn states that settle a turn (`complete`, `clarifying`, `error`, `passed`): the status is cleared. */
const SETTLED: ReadonlySet<string> = new Set(CANONICAL_TURN_STATES.filter((state) => state.isTerminal).map((state) => state.turnState));

/** What a status part says when its text is not a phrase Slack can show after the app's name. */
const PLAIN_STATUS: Readonly<Record<string, string>> = { ack: 'is on it…', thinking: 'is thinking…', progress: 'is working on it…' };

/** Words ending in `ing` that do not start a verb phrase. */
const NOT_VERBS: ReadonlySet<string> = new Set(['thing', 'something', 'nothing', 'anything', 'everything', 'during', 'morning', 'evening', 'king', 'string', 'spring']);

/** The part's words on one line: its text, else `data.message` or `data.label`. */
function wordsOf(part: Part): string {
  const data = isRecord(part.data) ? part.data : {};
  return oneLine(part.text ?? stringField(data, 'message') ?? stringField(data, 'label') ?? '');
}

/** `phrase` with `…` in place of its final punctuation, cut at a word to {@link MAX_STATUS_CHARS}. */
function fitted(phrase: string): string {
  const bare = phrase.replace(/[\s.!?,;:…]+$/u, '');
  if (bare.length < MAX_STATUS_CHARS) return `${bare}…`;
  const space = bare.lastIndexOf(' ', MAX_STATUS_CHARS - 1);
  const cut = bare.slice(0, space > 0 ? space : MAX_STATUS_CHARS - 1);
  return `${cut.replace(/[\s.,;:]+$/u, '')}…`;
}

/**
 * The status for a status part: `Looking up flights to Rome.` → `is looking up flights to Rome…`
 * (an `I'm` before the verb is dropped); text that does not start with a verb in `-ing` gives a
 * plain status per part type (`is thinking…`). At most {@link MAX_STATUS_CHARS} characters.
 */
export function statusText(part: Part): string {
  const words = wordsOf(part).replace(/^I(?:'|’)?m\s+|^I am\s+/iu, '');
  const first = /^\p{L}+/u.exec(words)?.[0].toLowerCase() ?? '';
  if (first.length < 4 || !first.endsWith('ing') || NOT_VERBS.has(first)) return PLAIN_STATUS[part.metadata.partType] ?? 'is working on it…';
  return fitted(`is ${words.charAt(0).toLowerCase()}${words.slice(1)}`);
}

function status(destination: Destination, text: string): SlackPayload[] {
  const where = whereOf(destination);
  return where.threadTs === undefined ? [] : [{ op: 'status', channel: where.channel, ...where.team, threadTs: where.threadTs, status: text }];
}

/** The status payload for a status part; none outside a thread (Slack keeps statuses on threads). */
export function partStatus(part: Part, destination: Destination): SlackPayload[] {
  return status(destination, statusText(part));
}

/** The payload clearing the status when `turnState` settles the turn; none for other states. */
export function settledStatus(turnState: string, destination: Destination): SlackPayload[] {
  return SETTLED.has(turnState) ? status(destination, '') : [];
}
