/**
 * The view of one event-log entry: a title, labelled values and longer texts, all plain text. The
 * server writes it as escaped HTML (`timeline-html.ts`); the live stream sends it as JSON and the
 * page's script builds it with text nodes. Any entry gets one, however malformed: an unknown type
 * or an unreadable shape falls back to its keys and values.
 */
import type { ApprovalAuditEntry, ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { inline, isData, isoTime, stringify, type Data } from './entry-fields.ts';

/** A labelled value; `href` (a path on this site or an `#anchor`) makes it a link. */
export interface ViewField {
  readonly label: string;
  readonly value: string;
  readonly href?: string;
}

/** A longer text shown in its own box (model output, tool arguments, an error). */
export interface ViewBlock {
  readonly label: string;
  readonly text: string;
}

/** How an entry went, for its colour. */
export type ViewTone = 'ok' | 'warn' | 'error';

/** What a type's view adds to the common part. */
export interface ViewBody {
  readonly title: string;
  readonly tone?: ViewTone;
  readonly fields?: readonly ViewField[];
  readonly blocks?: readonly ViewBlock[];
  /** A delivery's or a provider status's message id, which ties later statuses to the send. */
  readonly providerMessageId?: string;
}

/** The view of one entry. */
export interface EntryView extends ViewBody {
  /** The entry's id in the log (`<ms>-<seq>`, `/<n>` within a batch). */
  readonly id: string;
  /** The entry's type as stored (any text). */
  readonly type: string;
  /** ISO 8601. */
  readonly at: string;
  readonly turnId?: string;
  readonly actor?: string;
  readonly fields: readonly ViewField[];
  readonly blocks: readonly ViewBlock[];
  /** The entry's data as indented JSON, shown collapsed. */
  readonly raw: string;
}

/** An approval record and its audit trail, as the approval store has them. */
export interface ApprovalDetail {
  readonly record: ApprovalRecord;
  readonly audit: readonly ApprovalAuditEntry[];
}

/** What the views of a conversation may look up. */
export interface ViewContext {
  readonly sessionId: string;
  /** Approval records by id, for the entries that name one. */
  readonly approvals: ReadonlyMap<string, ApprovalDetail>;
  /** Whether capture links are shown (a capture store is wired). */
  readonly captures: boolean;
}

/** Makes the view of one entry type. */
export type ViewMaker = (data: Data, entry: StoredEventLogEntry, context: ViewContext) => ViewBody;

/** `[{ label, value }]` when the value is given and not empty, else `[]`. */
export function field(label: string, value: string | number | boolean | undefined, href?: string): ViewField[] {
  if (value === undefined || value === '') return [];
  return [{ label, value: String(value), ...(href === undefined ? {} : { href }) }];
}

/** `[{ label, text }]` when the text is given and not empty, else `[]`. */
export function block(label: string, value: string | undefined): ViewBlock[] {
  return value === undefined || value === '' ? [] : [{ label, text: value }];
}

/** Every top-level value of `data` as a field, in its order. */
export function genericFields(data: Data): ViewField[] {
  return Object.entries(data).flatMap(([key, value]) => field(key, inline(value)));
}

/** A type name in words: `delivery_status` → `Delivery status`. */
export function typeTitle(type: string): string {
  const words = type.replace(/[_-]+/g, ' ').trim();
  return words === '' ? 'Entry' : `${(words[0] ?? '').toUpperCase()}${words.slice(1)}`;
}

/** The common part of a view, and the body the maker gave, or the generic body when it threw. */
export function viewOf(entry: StoredEventLogEntry, makers: Readonly<Record<string, ViewMaker>>, context: ViewContext): EntryView {
  const rawData: unknown = (entry as { data?: unknown }).data;
  const data: Data = isData(rawData) ? rawData : { value: rawData };
  const type = typeof entry.type === 'string' ? entry.type : 'unknown';
  const maker = Object.hasOwn(makers, type) ? makers[type] : undefined;
  let body: ViewBody;
  try {
    body = data['truncated'] === true && typeof data['head'] === 'string'
      ? { title: `${typeTitle(type)} (cut: too long for the log)`, tone: 'warn', blocks: [{ label: 'The start of its data', text: data['head'] }] }
      : maker === undefined ? { title: typeTitle(type), fields: genericFields(data) } : maker(data, entry, context);
  } catch {
    body = { title: `${typeTitle(type)} (not in the expected shape)`, tone: 'warn', fields: genericFields(data) };
  }
  return {
    ...body,
    id: entry.id,
    type,
    at: typeof entry.at === 'number' ? isoTime(entry.at) : '',
    ...(typeof entry.turnId === 'string' && entry.turnId !== '' ? { turnId: entry.turnId } : {}),
    ...(typeof entry.actor === 'string' && entry.actor !== '' ? { actor: entry.actor } : {}),
    fields: body.fields ?? [],
    blocks: body.blocks ?? [],
    raw: stringify(rawData),
  };
}
