/**
 * What the property tests of the inbound parsers feed them, and how they judge the outcome: random
 * and malformed values (wrong types, huge and odd strings, deep nesting, prototype keys), valid
 * payloads broken at any depth, and the rule that a refusal is a coded `SwitchboardError` and
 * nothing else.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, expect } from 'vitest';
import { ERROR_CODES, SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';

/** The people senders are matched to in the property tests: one with an address on every channel. */
export const FUZZ_PEOPLE: readonly Person[] = [
  {
    id: 'ada',
    name: 'Ada Lovelace',
    addresses: { web: [], email: ['ada@example.com'], sms: ['+447700900123'], slack: ['T0ADA:U0ADA'], whatsapp: ['+447700900123'] },
    roles: [],
  },
];

/** An ISO 8601 time between 2000 and 2100, as channels stamp `receivedAt`. */
export const isoTime: fc.Arbitrary<string> = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** Keys that reach `Object.prototype` when an object is merged or indexed carelessly. */
export const PROTOTYPE_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

/** Strings that break careless text handling: control and invisible characters, lone surrogates, markup, escapes. */
const EDGE_STRINGS: readonly string[] = [
  '', ' ', '\t', '\n', '\r', '\r\n', '\n\n\n', '\u0000', 'a\u0000b', '\u0007\u001b[2J', '\ud800', '\udfff', 'x\udc00y', '\ufeff', '\u200b\u200d',
  '\u202e\u2066', '\u2028\u2029', '\u0085', '\u00a0', '\ue000\ue001', '👨‍👩‍👧‍👦', '🇵🇹', 'e\u0301', 'İı', 'ß', 'ﬀ', '¿', '%00', '%', '%zz', '\\',
  '"', "'", '`', '<script>alert(1)</script>', '<!--', ']]>', '&amp;', '&constructor;', '&#0;', '&#x110000;', '${x}', '{{x}}', '{}', '[]',
  '-- ', '> quoted', 'On Mon, 1 Jan 2024, a@b.c wrote:', 'APPROVE', 'deny K7QX3M', 'STOP', '+447700900123', 'a@b.c', '<a@b.c>',
];

/**
 * Any code point, lone surrogates included. Not fast-check's `unit: 'binary'`: building that one
 * takes 0.6 s per test file (a reverse map of all of Unicode), this one nothing.
 */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

/** A character that is a lone UTF-16 surrogate or a C0/C1 control character. */
const oddUnit = fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f })).map((code) => String.fromCharCode(code));

/** Long strings (each built once): what a size cap or a regular expression must survive. */
const HUGE_STRINGS: readonly string[] = ['x'.repeat(100_000), 'a '.repeat(60_000), '\n'.repeat(50_000), '>'.repeat(50_000), '&'.repeat(50_000), '<a'.repeat(40_000), '😀'.repeat(30_000)];

/** Random text: ASCII, all of Unicode, grapheme clusters, odd code units, edge cases, prototype keys, and now and then a huge string. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string() },
  { weight: 4, arbitrary: fc.string({ unit: codePoint }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme' }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.oneof(oddUnit, fc.string({ minLength: 1, maxLength: 1 })) }) },
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_STRINGS, ...PROTOTYPE_KEYS) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_STRINGS) },
);

/** `{ [key]: value }` with `key` an own property even when it is `__proto__`. */
export function ownEntries(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

/** Nested `depth` levels deep: arrays in arrays, or objects and arrays alternating. */
function deeplyNested(depth: number, alternate: boolean): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = alternate && level % 2 === 1 ? { a: value } : [value];
  return value;
}

/** Objects that try to reach `Object.prototype` through `__proto__` or `constructor.prototype` (as `JSON.parse` builds them). */
const pollutingObject: fc.Arbitrary<unknown> = fc.constantFrom(
  JSON.parse('{"__proto__":{"polluted":"yes"}}') as unknown,
  JSON.parse('{"constructor":{"prototype":{"polluted":"yes"}}}') as unknown,
  JSON.parse('{"__proto__":{"__proto__":{"polluted":"yes"}},"a":1}') as unknown,
);

/** Any value: JSON, every JavaScript value fast-check makes (bigints, boxed values, Maps, dates, sparse arrays, null prototypes), odd strings and numbers, polluting and deeply nested objects. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 4,
    arbitrary: fc.anything({
      maxDepth: 3,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      stringUnit: codePoint,
    }),
  },
  { weight: 3, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER + 2, 1e308, -1) },
  { weight: 1, arbitrary: pollutingObject },
  { weight: 1, arbitrary: fc.constantFrom(deeplyNested(1000, false), deeplyNested(1000, true), new Array(100_000).fill(0)) },
);

/** Any JSON value, also with prototype keys and odd strings: what `JSON.parse` of a hostile body gives. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...PROTOTYPE_KEYS)), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }) },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: pollutingObject },
);

/** `value` as JSON text, for a request body: BigInts as their digits, `undefined` (and what else JSON has no text for) as `null`. */
export function jsonText(value: unknown): string {
  // `JSON.stringify(undefined)` is `undefined`, whatever its declared type says.
  return value === undefined ? 'null' : JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
}

type Path = readonly (string | number)[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every path to a value inside `value` (objects and arrays walked, 6 levels and 20 children deep at most), the root excluded. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (prefix.length >= 6) return [];
  const children: [string | number, unknown][] = Array.isArray(value) ? value.slice(0, 20).map((item: unknown, index) => [index, item]) : isRecord(value) ? Object.entries(value).slice(0, 20) : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

/** One change at one place of a value. */
type Change = { readonly op: 'delete' } | { readonly op: 'replace'; readonly value: unknown } | { readonly op: 'add'; readonly key: string; readonly value: unknown };

/** A copy of `value` along `path` (every other branch shared) with `change` made at its end. */
function changed(value: unknown, path: Path, change: Change): unknown {
  const [head, ...rest] = path;
  if (head === undefined) {
    if (change.op === 'add' && isRecord(value)) return ownEntries([...Object.entries(value), [change.key, change.value]]);
    return change.op === 'replace' ? change.value : value;
  }
  if (Array.isArray(value)) {
    const copy = [...(value as unknown[])];
    if (rest.length === 0 && change.op === 'delete') copy.splice(Number(head), 1);
    else copy[Number(head)] = changed(copy[Number(head)], rest, change);
    return copy;
  }
  if (!isRecord(value)) return value;
  const entries = Object.entries(value).flatMap(([key, child]): [string, unknown][] => {
    if (key !== String(head)) return [[key, child]];
    if (rest.length === 0 && change.op === 'delete') return [];
    return [[key, changed(child, rest, change)]];
  });
  return ownEntries(entries);
}

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.constant({ op: 'delete' as const }),
  { weight: 3, arbitrary: anyValue.map((value) => ({ op: 'replace' as const, value })) },
  fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 })), anyValue).map(([key, value]) => ({ op: 'add' as const, key, value })),
);

/**
 * Values from `valid` broken at one to three places, at any depth: a field deleted, replaced by
 * {@link anyValue}, or an extra (often prototype) key added to an object.
 *
 * @example
 * fc.property(brokenFrom(smsEvent), (event) => { ... });
 */
export function brokenFrom(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.array(fc.tuple(fc.nat(), change), { minLength: 1, maxLength: 3 })).map(([value, changes]) =>
    changes.reduce((current, [pick, each]) => {
      const paths = [[], ...pathsOf(current)];
      return changed(current, paths[pick % paths.length] ?? [], each);
    }, value),
  );
}

/** The codes a refusal may carry. */
const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** What a call came to: its value, or the coded error it threw. */
export type Outcome<T> = { readonly returned: T } | { readonly refused: SwitchboardError };

/** Fails with a clear message unless `thrown` is a `SwitchboardError` with one of the known codes. */
export function expectCodedRefusal(thrown: unknown): asserts thrown is SwitchboardError {
  if (thrown instanceof SwitchboardError && KNOWN_CODES.has(thrown.code)) return;
  const what = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  throw new Error(`expected a coded SwitchboardError, got ${what}`, { cause: thrown });
}

/** Runs `run`: what it returned, or the coded error it threw; fails on any other throw. */
export function outcomeOf<T>(run: () => T): Outcome<T> {
  try {
    return { returned: run() };
  } catch (error) {
    expectCodedRefusal(error);
    return { refused: error };
  }
}

/** Awaits `run`: what it resolved to, or the coded error it rejected with; fails on any other rejection. */
export async function settledOutcomeOf<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { returned: await run() };
  } catch (error) {
    expectCodedRefusal(error);
    return { refused: error };
  }
}

/** Two outcomes compared for determinism: equal values, or refusals with the same code. */
export function expectSameOutcome<T>(first: Outcome<T>, second: Outcome<T>): void {
  if ('refused' in first) expect('refused' in second ? second.refused.code : second).toBe(first.refused.code);
  else expect(second).toEqual(first);
}

/**
 * Registers, for every test of the file: a listener that fails the test when a promise rejection
 * went unhandled while it ran, and a check that nothing was added to `Object.prototype`.
 */
export function useFuzzGuards(): void {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', listener);
  });
  afterEach(async () => {
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', listener);
    expect(unhandled).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
  });
}
