/**
 * The inspector's parameters, checked before anything reads Redis: lengths, allowed characters,
 * enumerations and numbers. Values go to the index and the log as exact values, never as a key
 * pattern.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ConversationQuery, ConversationState } from '../../src/runtime/inspect/conversation-index.ts';
import { CONVERSATION_STATES } from './inspector-sources.ts';

/** Conversations per page when the request does not say. */
export const DEFAULT_PAGE_SIZE = 50;
/** The most conversations one page may ask for. */
export const MAX_PAGE_SIZE = 100;

const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;
const TURN_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const CHANNEL = /^[a-z][a-z0-9_-]{0,31}$/;
const ACTOR = /^[A-Za-z0-9_.-]{1,64}$/;
/** A cursor is the index's own opaque text: printable ASCII without spaces. */
const CURSOR = /^[\x21-\x7e]{1,512}$/;
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
/** `2025-03-07`, `2025-03-07T10:00`, `…:30`, `….250`, then an optional `Z` or offset. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;
/** Person ids and addresses: anything printable, but bounded. */
const MAX_TEXT = 200;

function bad(field: string, message: string): SwitchboardError {
  return new SwitchboardError('http.bad_request', message, { details: { field } });
}

/** Whether `value` can be a session id (`ses_…` and the shorter ids of tests and tools). */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

/** `value` when it can be a session id; throws `http.bad_request` (400) otherwise. */
export function sessionIdParam(value: string | undefined): string {
  if (value === undefined || !isSessionId(value)) throw bad('id', 'The conversation id must be 1 to 100 characters of A-Z, a-z, 0-9, "_" and "-".');
  return value;
}

/** A turn id and step of a capture link; throws `http.bad_request` (400) when either is malformed. */
export function captureParams(turnId: string | undefined, step: string | undefined): { turnId: string; step: number } {
  if (turnId === undefined || !TURN_ID.test(turnId)) throw bad('turnId', 'The turn id must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-", "." and ":".');
  const number = Number(step);
  if (step === undefined || !/^\d{1,4}$/.test(step) || !Number.isInteger(number)) throw bad('step', 'The step must be a whole number from 0 to 9999.');
  return { turnId, step: number };
}

/** Whether `value` is a full Redis Stream id such as `1700000000000-0`. */
export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value);
}

/** Milliseconds of a `from`/`to` value: a date, a date and time (UTC unless it has an offset), or epoch milliseconds. */
function timeParam(field: string, value: string): number {
  const trimmed = value.trim();
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  if (!DATE_TIME.test(trimmed)) throw bad(field, `${field} must be a date (2025-03-07), a UTC date and time (2025-03-07T10:00), or milliseconds since 1970.`);
  const zoned = /[Zz]$|[+-]\d{2}:\d{2}$/.test(trimmed) || !trimmed.includes('T') ? trimmed : `${trimmed}Z`;
  const ms = Date.parse(zoned);
  const [year, month, day] = trimmed.slice(0, 10).split('-').map(Number);
  const calendar = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  // Date.parse rolls 2030-02-30 over to March: the calendar date must exist as written.
  if (Number.isNaN(ms) || calendar.getUTCMonth() !== (month ?? 0) - 1 || calendar.getUTCDate() !== day) throw bad(field, `${field} is not a real date.`);
  return ms;
}

function textParam(field: string, value: string, pattern: RegExp | undefined, rule: string): string {
  const trimmed = value.trim();
  if (trimmed.length > MAX_TEXT || (pattern !== undefined && !pattern.test(trimmed))) throw bad(field, `${field} must be ${rule}.`);
  return trimmed;
}

/** What the list page shows besides the query: the filters as given, for its form and its next link. */
export interface ListRequest {
  readonly query: ConversationQuery & { readonly limit: number };
  /** The filters as text, without the cursor (empty ones left out). */
  readonly filters: Readonly<Record<string, string>>;
}

/** The filter fields of the list, in the order the form shows them. */
export const FILTER_FIELDS = ['person', 'address', 'channel', 'actor', 'state', 'from', 'to'] as const;

/**
 * Reads `?person=&address=&channel=&actor=&state=&from=&to=&cursor=&limit=` (every one optional;
 * empty ones are ignored). Throws `http.bad_request` (400) naming the first bad field.
 */
export function listRequest(params: URLSearchParams): ListRequest {
  const given = (name: string): string | undefined => {
    const value = params.get(name);
    return value === null || value.trim() === '' ? undefined : value;
  };
  const query: { -readonly [K in keyof ConversationQuery]: ConversationQuery[K] } = {};
  const filters: Record<string, string> = {};
  const texts: readonly [name: 'person' | 'address' | 'channel' | 'actor', pattern: RegExp | undefined, rule: string][] = [
    ['person', undefined, `at most ${String(MAX_TEXT)} characters`],
    ['address', undefined, `at most ${String(MAX_TEXT)} characters`],
    ['channel', CHANNEL, 'a channel name such as sms or web'],
    ['actor', ACTOR, 'an actor name (letters, digits, ".", "_", "-")'],
  ];
  for (const [name, pattern, rule] of texts) {
    const value = given(name);
    if (value === undefined) continue;
    const checked = textParam(name, value, pattern, rule);
    query[name] = checked;
    filters[name] = checked;
  }
  const state = given('state');
  if (state !== undefined) {
    if (!(CONVERSATION_STATES as readonly string[]).includes(state)) throw bad('state', `state must be one of ${CONVERSATION_STATES.join(', ')}.`);
    query.state = state as ConversationState;
    filters['state'] = state;
  }
  const from = given('from');
  if (from !== undefined) {
    query.from = timeParam('from', from);
    filters['from'] = from.trim();
  }
  const to = given('to');
  if (to !== undefined) {
    query.to = timeParam('to', to);
    filters['to'] = to.trim();
  }
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) throw bad('from', 'from must not be later than to.');
  const cursor = given('cursor');
  if (cursor !== undefined) {
    if (!CURSOR.test(cursor)) throw bad('cursor', 'cursor must be the next-page value of an earlier answer.');
    query.cursor = cursor;
  }
  const limitText = given('limit');
  const limit = limitText === undefined ? DEFAULT_PAGE_SIZE : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText ?? '1') || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw bad('limit', `limit must be a whole number from 1 to ${String(MAX_PAGE_SIZE)}.`);
  }
  if (limitText !== undefined) filters['limit'] = String(limit);
  return { query: { ...query, limit }, filters };
}
