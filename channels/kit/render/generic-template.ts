/**
 * The rendering of domain data no template knows: a heading from the kind and readable
 * `Key: value` lines; nested objects flattened into their parent's line names, lists of values
 * joined with commas, lists of objects as nested items. Never JSON.
 */

import type { List, Paragraph, RootContent } from 'mdast';
import { headingNode, listNode, paragraphNode, strongNode } from './mdast-build.ts';

/** Limits of {@link genericTemplate}. */
export interface GenericLimits {
  /** Most lines (items) shown; the rest is summed up as `… and N more`. Default 20. */
  readonly maxLines?: number;
  /** Longest value, in characters, before it is cut with `…`. Default 160. */
  readonly maxValueChars?: number;
  /** Deepest nesting followed; deeper values read `(more)`. Default 4. */
  readonly maxDepth?: number;
}

type Item = Paragraph | readonly [Paragraph, List];

/** `checkInDate`, `check_in_date` and `check-in-date` all read `Check in date`. */
export function humanise(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? key : words.charAt(0).toUpperCase() + words.slice(1);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

function scalar(value: unknown, max: number): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return cut(String(value), max);
  return undefined;
}

function line(label: string, value: string): Paragraph {
  if (label === '') return paragraphNode(value);
  return value === '' ? paragraphNode(strongNode(`${label}:`)) : paragraphNode(strongNode(`${label}:`), ` ${value}`);
}

/** The one scalar of an object with a single field (`{ fullName: 'Ada' }`), else `undefined`. */
function soleScalar(value: unknown, max: number): string | undefined {
  if (!isRecord(value)) return scalar(value, max);
  const entries = Object.values(value);
  return entries.length === 1 ? scalar(entries[0], max) : undefined;
}

/** `Key: value` fragments of an object, flattened, for one line. */
function inlineFields(value: Record<string, unknown>, prefix: string, max: number, depth: number): string[] {
  return Object.entries(value).flatMap(([key, inner]) => {
    const name = prefix === '' ? humanise(key) : `${prefix} ${humanise(key).toLowerCase()}`;
    const text = scalar(inner, max);
    if (text !== undefined) return [`${name}: ${text}`];
    if (Array.isArray(inner)) {
      const values = inner.map((entry) => scalar(entry, max)).filter((entry) => entry !== undefined);
      return values.length === 0 ? [] : [`${name}: ${cut(values.join(', '), max)}`];
    }
    if (isRecord(inner)) return depth > 0 ? inlineFields(inner, name, max, depth - 1) : [`${name}: (more)`];
    return [];
  });
}

function items(value: unknown, label: string, limits: Required<GenericLimits>, depth: number): Item[] {
  const max = limits.maxValueChars;
  const text = scalar(value, max);
  if (text !== undefined) return [line(label, text)];
  if (isRecord(value)) {
    if (depth <= 0) return [line(label, '(more)')];
    return Object.entries(value).flatMap(([key, inner]) =>
      items(inner, label === '' ? humanise(key) : `${label} ${humanise(key).toLowerCase()}`, limits, depth - 1),
    );
  }
  if (!Array.isArray(value) || value.length === 0) return [];
  if (value.every((entry) => soleScalar(entry, max) !== undefined || entry === null)) {
    return [line(label, cut(value.map((entry) => soleScalar(entry, max) ?? 'none').join(', '), max))];
  }
  const nested = value.slice(0, limits.maxLines).map((entry) => {
    const fields = isRecord(entry) ? inlineFields(entry, '', max, depth - 1) : [scalar(entry, max) ?? '(more)'];
    return paragraphNode(cut(fields.join(', '), max * 2));
  });
  if (value.length > limits.maxLines) nested.push(paragraphNode(`… and ${value.length - limits.maxLines} more`));
  return [[line(label, ''), listNode(nested)]];
}

/**
 * Domain data of `kind` as a heading (the kind, humanised) and a list of `Key: value` lines, within
 * `limits`: nested objects flattened into `Parent child: value`, lists of values (or of one-field
 * objects) joined with commas, lists of objects as a nested list of one line each. Nothing for a
 * value that holds nothing to show.
 *
 * @example
 * genericTemplate('hotel-offer', { name: 'Hotel Roma', room: { type: 'double' } }, {});
 * // heading "Hotel offer", items "Name: Hotel Roma", "Room type: double"
 */
export function genericTemplate(kind: string, value: unknown, limits: GenericLimits = {}): RootContent[] {
  const full: Required<GenericLimits> = { maxLines: 20, maxValueChars: 160, maxDepth: 4, ...limits };
  const all = items(value, '', full, full.maxDepth);
  if (all.length === 0) return [];
  const shown: Item[] = all.slice(0, full.maxLines);
  if (all.length > full.maxLines) shown.push(paragraphNode(`… and ${all.length - full.maxLines} more`));
  return [headingNode(humanise(kind)), listNode(shown)];
}
