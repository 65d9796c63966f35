/**
 * What every injection a channel builds must look like, checked in full: the property tests of the
 * inbound normalisers run each injection they return through {@link expectWellFormedInjection}.
 */
import { expect } from 'vitest';
import { CONTENT_SOURCES } from '../../src/runtime/content-trust.ts';
import type { ContentSource, Injection } from '../../src/runtime/injection.ts';
import { expectSameOutcome, outcomeOf } from './fuzz-inputs.ts';

const KINDS: ReadonlySet<string> = new Set(['message', 'approval-response', 'peer-result', 'timeout', 'user-action']);
const INJECTION_KEYS: ReadonlySet<string> = new Set(['id', 'kind', 'channel', 'tenantId', 'conversationKey', 'sender', 'text', 'content', 'data', 'replyTo', 'receivedAt']);
const CONTENT_KEYS: ReadonlySet<string> = new Set(['source', 'trusted']);
const SENDER_KEYS: ReadonlySet<string> = new Set(['id', 'displayName', 'personId', 'verified', 'basis']);
const DESTINATION_KEYS: ReadonlySet<string> = new Set(['channel', 'address', 'thread']);
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;
/** A missing or non-string field interpolated into a key: `T1:C1:undefined`, `[object Object]`. */
const LEAKED = /(?:^|[:\s])(undefined|\[object Object\]|NaN)(?:$|[:\s])/;

type Fields = Readonly<Record<string, unknown>>;

function isPlainObject(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Why `value` is not plain JSON data (what a queue can carry unchanged). */
function jsonProblems(value: unknown, path: string, depth = 0): string[] {
  if (depth > 64) return [`${path}: nested over 64 levels`];
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path}: ${String(value)} is not a JSON number`];
  if (Array.isArray(value)) return value.flatMap((item, index) => jsonProblems(item, `${path}/${index}`, depth + 1));
  if (isPlainObject(value)) return Object.entries(value).flatMap(([key, item]) => jsonProblems(item, `${path}/${key}`, depth + 1));
  return [`${path}: a ${typeof value} is not JSON data`];
}

function extraKeys(value: Fields, allowed: ReadonlySet<string>, path: string): string[] {
  return Object.keys(value).filter((key) => !allowed.has(key)).map((key) => `${path}/${key}: not a field of its type`);
}

/** `value` for a problem line: a string quoted, anything else by its type (never thrown on). */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : `a ${typeof value}`;
}

function nonEmpty(value: unknown, path: string): string[] {
  return typeof value === 'string' && value !== '' ? [] : [`${path}: ${shown(value)} is not a non-empty string`];
}

function optionalString(value: unknown, path: string): string[] {
  return value === undefined || typeof value === 'string' ? [] : [`${path}: not a string`];
}

/** The strings inside `value`, objects and arrays walked 8 levels deep; a Buffer as its UTF-8 text. */
function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (Buffer.isBuffer(value)) return [value.toString('utf8')];
  if (depth >= 8 || typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap((item) => stringsIn(item, depth + 1));
}

/** What key problems look at: the words a leaked field leaves, unless the input itself had them. */
interface LeakCheck {
  readonly given: readonly string[];
}

function keyProblems(value: unknown, path: string, leaks: LeakCheck): string[] {
  const token = typeof value === 'string' ? LEAKED.exec(value)?.[1] : undefined;
  if (token === undefined || leaks.given.some((text) => text.includes(token))) return [];
  return [`${path}: ${shown(value)} holds a missing field`];
}

function senderProblems(sender: unknown, leaks: LeakCheck): string[] {
  if (!isPlainObject(sender)) return ['/sender: not an object'];
  return [
    ...extraKeys(sender, SENDER_KEYS, '/sender'),
    ...nonEmpty(sender['id'], '/sender/id'),
    ...keyProblems(sender['id'], '/sender/id', leaks),
    ...(typeof sender['verified'] === 'boolean' ? [] : ['/sender/verified: not a boolean']),
    ...optionalString(sender['displayName'], '/sender/displayName'),
    ...optionalString(sender['personId'], '/sender/personId'),
    ...optionalString(sender['basis'], '/sender/basis'),
  ];
}

/** A channel's injection says where its text came from: a known source, and whether it is trusted. */
function contentProblems(content: unknown): string[] {
  if (!isPlainObject(content)) return ['/content: not an object (every channel sets it)'];
  const { source, trusted } = content;
  return [
    ...extraKeys(content, CONTENT_KEYS, '/content'),
    ...(typeof source === 'string' && CONTENT_SOURCES.includes(source as ContentSource) ? [] : [`/content/source: ${shown(source)} is not a content source`]),
    ...(typeof trusted === 'boolean' ? [] : ['/content/trusted: not a boolean']),
  ];
}

function destinationProblems(replyTo: unknown, channel: unknown, leaks: LeakCheck): string[] {
  if (!isPlainObject(replyTo)) return ['/replyTo: not an object'];
  const thread = replyTo['thread'];
  const threadProblems =
    thread === undefined
      ? []
      : isPlainObject(thread)
        ? Object.entries(thread).flatMap(([key, item]) => [
            ...(typeof item === 'string' ? [] : [`/replyTo/thread/${key}: not a string`]),
            ...keyProblems(item, `/replyTo/thread/${key}`, leaks),
          ])
        : ['/replyTo/thread: not an object'];
  return [
    ...extraKeys(replyTo, DESTINATION_KEYS, '/replyTo'),
    ...(replyTo['channel'] === channel ? [] : ['/replyTo/channel: not the injection\'s channel']),
    ...nonEmpty(replyTo['address'], '/replyTo/address'),
    ...keyProblems(replyTo['address'], '/replyTo/address', leaks),
    ...threadProblems,
  ];
}

function timeProblems(value: unknown): string[] {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && Number.isFinite(Date.parse(value))
    ? []
    : [`/receivedAt: ${shown(value)} is not an ISO 8601 date-time`];
}

/**
 * Everything wrong with `value` as an {@link Injection}; empty when it is well formed: exactly the
 * fields of the type, each of its type; `content` set, with a known source; ids, keys and
 * addresses non-empty and free of interpolated `undefined`, `NaN` or `[object Object]` (unless
 * `source`, the input the injection was made of, holds those words itself); the id prefixed with
 * its channel; `replyTo` on the same channel; `receivedAt` an ISO 8601 date-time; `data` plain
 * JSON; the whole a plain JSON object.
 */
export function injectionProblems(value: unknown, source?: unknown): string[] {
  if (!isPlainObject(value)) return ['(injection): not a plain object'];
  const leaks: LeakCheck = { given: stringsIn(source) };
  const { id, kind, channel, tenantId, conversationKey, text, data } = value;
  return [
    ...extraKeys(value, INJECTION_KEYS, ''),
    ...nonEmpty(channel, '/channel'),
    ...nonEmpty(id, '/id'),
    ...(typeof id === 'string' && typeof channel === 'string' && !id.startsWith(`${channel}:`) ? ['/id: not prefixed with its channel'] : []),
    ...keyProblems(id, '/id', leaks),
    ...(typeof kind === 'string' && KINDS.has(kind) ? [] : [`/kind: ${shown(kind)} is not a kind of injection`]),
    ...nonEmpty(tenantId, '/tenantId'),
    ...nonEmpty(conversationKey, '/conversationKey'),
    ...keyProblems(conversationKey, '/conversationKey', leaks),
    ...senderProblems(value['sender'], leaks),
    ...(typeof text === 'string' ? [] : ['/text: not a string']),
    ...contentProblems(value['content']),
    ...(data === undefined || isPlainObject(data) ? [] : ['/data: not an object']),
    ...destinationProblems(value['replyTo'], channel, leaks),
    ...timeProblems(value['receivedAt']),
    ...jsonProblems(value, ''),
  ];
}

/**
 * Fails the test, listing every problem, unless `value` is a well-formed {@link Injection}
 * (see {@link injectionProblems}); `source` is the input it was made of.
 *
 * @example
 * const injection = normaliseSmsEvent(event, options);
 * expectWellFormedInjection(injection, event);
 */
export function expectWellFormedInjection(value: unknown, source?: unknown): asserts value is Injection {
  expect(injectionProblems(value, source)).toEqual([]);
}

/** Options of {@link expectInjectionOrRefusal}. */
export interface InjectionOrRefusalOptions {
  /** `undefined` is an answer too (the email channel's own mail). Default `false`. */
  readonly mayReturnNothing?: boolean;
  /** An injection must come out the same when normalised again (not when its id is random). Default `true`. */
  readonly repeatable?: boolean;
}

/**
 * The rule for a normaliser fed anything: it returns a well-formed injection of `source` (see
 * {@link expectWellFormedInjection}) or refuses with `channel.invalid`, never another error, and
 * answers the same when run again (a refusal always; an injection when `repeatable`).
 *
 * @example
 * fc.property(anyValue, (value) => expectInjectionOrRefusal(() => normaliseSmsEvent(value, options), value));
 */
export function expectInjectionOrRefusal(normalise: () => Injection | undefined, source: unknown, options: InjectionOrRefusalOptions = {}): void {
  const first = outcomeOf(normalise);
  if ('refused' in first) expect(first.refused.code).toBe('channel.invalid');
  else if (!(options.mayReturnNothing === true && first.returned === undefined)) expectWellFormedInjection(first.returned, source);
  if ((options.repeatable ?? true) || 'refused' in first) expectSameOutcome(first, outcomeOf(normalise));
}
