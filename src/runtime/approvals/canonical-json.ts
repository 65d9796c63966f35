/**
 * Canonical JSON of tool arguments, so that an approval can be tied to the exact call it was asked
 * for: the same arguments give the same text (and hash) whatever order their keys came in.
 */
import { createHash } from 'node:crypto';

function describePath(path: readonly (string | number)[]): string {
  return path.length === 0 ? 'the value' : `"${path.map(String).join('.')}"`;
}

function write(value: unknown, path: (string | number)[], seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${describePath(path)} is ${String(value)}, which JSON cannot hold`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: ${describePath(path)} is a ${typeof value}, which JSON cannot hold`);
  }
  if (seen.has(value)) throw new TypeError(`canonicalJson: ${describePath(path)} refers back to itself`);
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items = (value as unknown[]).map((item, index) => {
        // JSON.stringify writes null for holes and undefined items; refuse instead of guessing.
        if (item === undefined) throw new TypeError(`canonicalJson: ${describePath([...path, index])} is undefined inside an array`);
        return write(item, [...path, index], seen);
      });
      return `[${items.join(',')}]`;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`canonicalJson: ${describePath(path)} is not a plain object (Date, Map, class instances are refused)`);
    }
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${write(record[key], [...path, key], seen)}`);
    return `{${members.join(',')}}`;
  } finally {
    seen.delete(value);
  }
}

/**
 * The canonical JSON text of `value`: object keys sorted (by UTF-16 code unit, as
 * `Array.prototype.sort` does) at every depth, arrays kept in order, no whitespace, object members
 * whose value is `undefined` left out.
 *
 * @throws TypeError for anything plain JSON cannot hold: functions, symbols, bigints, `NaN` and
 *   infinities, `undefined` at the top or inside an array, non-plain objects (Date, Map, class
 *   instances) and cycles. The message names the offending path.
 *
 * @example
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, [], new Set());
}

/**
 * Hex SHA-256 (64 lower-case characters) of the UTF-8 bytes of {@link canonicalJson}`(args)`.
 *
 * @throws TypeError as {@link canonicalJson} does.
 */
export function argsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args), 'utf8').digest('hex');
}
