/**
 * A conversation's entries in sections: each turn's entries together (a provider's later status
 * joins the turn whose delivery it is about), and the entries of no turn (sender policy, a
 * status of an unknown send) in runs between them, in the order they first appear. Each turn
 * also gets its totals and a summary of its deliveries.
 */
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { isData, number, object, text, type Data } from './entry-fields.ts';
import type { EntryView } from './entry-view.ts';

/** One delivery of a turn: each attempt and each later status of the provider. */
export interface DeliverySummary {
  readonly channel: string;
  readonly address: string;
  readonly attempts: { readonly attempt: number | undefined; readonly outcome: string; readonly providerMessageId?: string }[];
  readonly statuses: string[];
}

/** A turn's totals, from its entries. */
export interface TurnFacts {
  /** From `turn_settled`, else the last `turn_state`; `undefined` while none was written. */
  readonly state: string | undefined;
  readonly modelCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly deliveries: readonly DeliverySummary[];
}

/** One section of the timeline. */
export interface TimelineSection {
  /** The turn id, or `between-<first entry id>` for entries of no turn. */
  readonly key: string;
  readonly turnId?: string;
  readonly actor?: string;
  readonly views: readonly EntryView[];
  /** For a turn's section. */
  readonly facts?: TurnFacts;
}

interface Building {
  key: string;
  turnId?: string;
  actor?: string;
  readonly views: EntryView[];
  readonly entries: StoredEventLogEntry[];
}

/** The entry's type as text: the log may hold types this build does not name. */
function typeOf(entry: StoredEventLogEntry): string {
  return entry.type;
}

function dataOf(entry: StoredEventLogEntry): Data {
  const data: unknown = (entry as { data?: unknown }).data;
  return isData(data) ? data : {};
}

/** The deliveries of a turn, by idempotency key (else channel and address), in order of their first attempt. */
function deliveriesOf(entries: readonly StoredEventLogEntry[]): DeliverySummary[] {
  const byKey = new Map<string, DeliverySummary>();
  const byProvider = new Map<string, DeliverySummary>();
  for (const entry of entries) {
    const data = dataOf(entry);
    // A hand-over to the channel (no outcome) is not an attempt; a skipped part is shown as one.
    const outcome = text(data, 'outcome') ?? (text(data, 'skipped') === undefined ? undefined : `skipped (${text(data, 'skipped') ?? ''})`);
    if (typeOf(entry) === 'delivery' && outcome !== undefined) {
      const channel = text(data, 'channel') ?? '';
      const address = text(data, 'address') ?? '';
      const key = text(data, 'idempotencyKey') ?? `${channel} ${address}`;
      const summary = byKey.get(key) ?? { channel, address, attempts: [], statuses: [] };
      byKey.set(key, summary);
      const providerMessageId = text(data, 'providerMessageId');
      summary.attempts.push({ attempt: number(data, 'attempt'), outcome, ...(providerMessageId === undefined ? {} : { providerMessageId }) });
      if (providerMessageId !== undefined) byProvider.set(providerMessageId, summary);
    } else if (typeOf(entry) === 'delivery_status') {
      const status = text(data, 'status');
      const summary = byProvider.get(text(data, 'providerMessageId') ?? '');
      if (summary !== undefined && status !== undefined) summary.statuses.push(status);
    }
  }
  return [...byKey.values()];
}

function factsOf(entries: readonly StoredEventLogEntry[]): TurnFacts {
  let state: string | undefined;
  let settled = false;
  let modelCalls = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  for (const entry of entries) {
    const data = dataOf(entry);
    if (typeOf(entry) === 'turn_settled') {
      state = text(data, 'turnState') ?? state;
      settled = true;
    } else if (typeOf(entry) === 'turn_state' && !settled) state = text(data, 'turnState') ?? state;
    else if (typeOf(entry) === 'model_response') {
      modelCalls += 1;
      const usage = object(data, 'usage') ?? {};
      inputTokens += number(usage, 'inputTokens') ?? 0;
      outputTokens += number(usage, 'outputTokens') ?? 0;
      costUsd += number(data, 'costUsd') ?? 0;
    }
  }
  return { state, modelCalls, inputTokens, outputTokens, costUsd, deliveries: deliveriesOf(entries) };
}

/** Groups `entries` (in log order) and their `views` (the same order) into sections. */
export function groupTimeline(entries: readonly StoredEventLogEntry[], views: readonly EntryView[]): TimelineSection[] {
  const sections: Building[] = [];
  const turns = new Map<string, Building>();
  const turnOfMessage = new Map<string, string>();
  entries.forEach((entry, index) => {
    const view = views[index];
    if (view === undefined) return;
    const providerMessageId = view.providerMessageId;
    if (typeOf(entry) === 'delivery' && view.turnId !== undefined && providerMessageId !== undefined) turnOfMessage.set(providerMessageId, view.turnId);
    const turnId = view.turnId ?? (typeOf(entry) === 'delivery_status' && providerMessageId !== undefined ? turnOfMessage.get(providerMessageId) : undefined);
    let section = turnId === undefined ? undefined : turns.get(turnId);
    if (section === undefined && turnId === undefined) {
      const last = sections.at(-1);
      if (last !== undefined && last.turnId === undefined) section = last;
    }
    if (section === undefined) {
      section = turnId === undefined ? { key: `between-${view.id}`, views: [], entries: [] } : { key: turnId, turnId, views: [], entries: [] };
      sections.push(section);
      if (turnId !== undefined) turns.set(turnId, section);
    }
    if (section.actor === undefined && view.actor !== undefined && section.turnId !== undefined) section.actor = view.actor;
    section.views.push(view);
    section.entries.push(entry);
  });
  return sections.map(({ key, turnId, actor, views: sectionViews, entries: sectionEntries }) => ({
    key,
    ...(turnId === undefined ? {} : { turnId, facts: factsOf(sectionEntries) }),
    ...(actor === undefined ? {} : { actor }),
    views: sectionViews,
  }));
}
