/**
 * Reading an event-log entry's data without trusting its shape: every reader answers `undefined`
 * for a value of another type, so an old, new or malformed entry is shown as far as it can be.
 */

/** A plain JSON object. */
export type Data = Readonly<Record<string, unknown>>;

/** Whether `value` is a plain object (not an array, not null). */
export function isData(value: unknown): value is Data {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `data[key]` when it is a string. */
export function text(data: Data, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' ? value : undefined;
}

/** `data[key]` when it is a finite number. */
export function number(data: Data, key: string): number | undefined {
  const value = data[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `data[key]` when it is a plain object. */
export function object(data: Data, key: string): Data | undefined {
  const value = data[key];
  return isData(value) ? value : undefined;
}

/** `data[key]` when it is an array. */
export function list(data: Data, key: string): readonly unknown[] | undefined {
  const value = data[key];
  return Array.isArray(value) ? value : undefined;
}

/** A value in one line: strings as they are, numbers and booleans in words, anything else as compact JSON. */
export function inline(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '';
  return stringify(value, 0);
}

/** JSON of anything, never throwing (a cycle or a BigInt becomes a note). */
export function stringify(value: unknown, indent = 2): string {
  try {
    // `undefined` for a function or `undefined` itself, whatever the declared type says.
    const json = JSON.stringify(value, null, indent) as string | undefined;
    return json ?? String(value);
  } catch {
    return '(not representable as JSON)';
  }
}

/** A string shown as it is, anything else as indented JSON. */
export function readable(value: unknown): string {
  return typeof value === 'string' ? value : stringify(value);
}

/** `1,234`. */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `$0.012345` (up to six decimals, as model prices are small). */
export function usd(value: number): string {
  return `$${value.toFixed(value !== 0 && Math.abs(value) < 0.01 ? 6 : 4)}`;
}

/** An ISO 8601 time of epoch milliseconds, or `''` when it is not one. */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/**
 * A person or party on a channel in words: `personId (channel address), verified by basis`. Takes
 * an approval identity (`channel`, `address`, `personId`, `verified`, `basis`) or a sender (`id`
 * for the address, `displayName`); `undefined` when `value` is neither.
 */
export function identity(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isData(value)) return undefined;
  const address = text(value, 'address') ?? text(value, 'id');
  const channel = text(value, 'channel');
  const where = [channel, address].filter((part) => part !== undefined && part !== '').join(' ');
  const name = text(value, 'personId') ?? text(value, 'displayName');
  const who = name === undefined ? where : where === '' ? name : `${name} (${where})`;
  if (who === '') return undefined;
  const verified = value['verified'];
  const checked = verified === true ? `${who}, verified` : verified === false ? `${who}, not verified` : who;
  const basis = text(value, 'basis');
  const agent = value['agent'] === true ? ' (an agent)' : '';
  return `${basis === undefined ? checked : `${checked} by ${basis}`}${agent}`;
}
