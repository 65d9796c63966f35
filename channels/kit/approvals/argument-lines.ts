/**
 * A tool call's arguments as `Label: value` lines a person reads: keys humanised, nested objects
 * flattened into their parent's label (`Address city`), arrays of values joined with `, `, arrays
 * of objects one line per item (`Line items 1`), money given its currency, long values cut.
 */
import { humaniseKey } from './humanise-key.ts';
import { formatMoney, formatScalar, truncate } from './format-value.ts';

/** One line of arguments, shown as `Label: value`. */
export interface ArgumentLine {
  /** The humanised key path, e.g. `Total cost`, `Address city`. */
  readonly label: string;
  /** The value in plain words, at most `maxValueChars` characters. */
  readonly value: string;
  /** Set on the line the request's amount was taken from. */
  readonly isAmount?: boolean;
}

/** Nesting deeper than this is shown as `...`. */
const MAX_DEPTH = 4;

/** Last words of keys that hold money: `totalCost`, `amount`, `price`, `fare`, `fee`... */
const MONEY_WORDS = new Set(['cost', 'amount', 'price', 'total', 'subtotal', 'fare', 'fee', 'charge']);

type Args = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Args {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is string | number | bigint | boolean | null {
  return value === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof value);
}

/** Whether `key` names an amount of money (its last word is one of {@link MONEY_WORDS}). */
export function isMoneyKey(key: string): boolean {
  const words = humaniseKey(key).toLowerCase().split(' ');
  return MONEY_WORDS.has(words[words.length - 1] ?? '');
}

/** The currency code an object states in a `currency` / `currencyCode` / `currency_code` key, if any. */
export function currencyOf(object: Args): string | undefined {
  for (const [key, value] of Object.entries(object)) {
    const compact = key.toLowerCase().replace(/[_-]/g, '');
    if ((compact === 'currency' || compact === 'currencycode') && typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim())) {
      return value.trim().toUpperCase();
    }
  }
  return undefined;
}

function isCurrencyKey(key: string): boolean {
  const compact = key.toLowerCase().replace(/[_-]/g, '');
  return compact === 'currency' || compact === 'currencycode';
}

/** A value that fits on one line: scalars, money, arrays joined with `, ` (objects inside as `key value` pairs). */
function inlineValue(key: string, value: unknown, currency: string | undefined, depth: number): string {
  if (typeof value === 'number' && currency !== undefined && isMoneyKey(key) && Number.isFinite(value)) return formatMoney(value, currency);
  if (isScalar(value)) return formatScalar(value);
  if (depth >= MAX_DEPTH) return '...';
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    const pairs = value.some((item: unknown) => isRecord(item) && Object.keys(item).length > 1);
    return value.map((item: unknown) => inlineValue(key, item, currency, depth + 1)).join(pairs ? '; ' : ', ');
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, inner]) => inner !== undefined);
    const inner = currencyOf(value) ?? currency;
    const [only] = entries;
    if (entries.length === 1 && only !== undefined) return inlineValue(only[0], only[1], inner, depth + 1);
    return entries
      .filter(([innerKey]) => !(isCurrencyKey(innerKey) && currencyOf(value) !== undefined))
      .map(([innerKey, innerValue]) => `${humaniseKey(innerKey).toLowerCase()} ${inlineValue(innerKey, innerValue, inner, depth + 1)}`)
      .join(', ');
  }
  return typeof value === 'function' || typeof value === 'symbol' ? '...' : 'none';
}

function hasMoneySibling(object: Args): boolean {
  return Object.entries(object).some(([key, value]) => typeof value === 'number' && isMoneyKey(key));
}

function collect(object: Args, path: readonly string[], depth: number, maxValueChars: number, out: ArgumentLine[]): void {
  const currency = currencyOf(object);
  const dropCurrency = currency !== undefined && hasMoneySibling(object);
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined || (dropCurrency && isCurrencyKey(key))) continue;
    const keyPath = [...path, key];
    if (isRecord(value) && depth < MAX_DEPTH && Object.keys(value).length > 0) {
      collect(value, keyPath, depth + 1, maxValueChars, out);
      continue;
    }
    if (Array.isArray(value) && value.some((item: unknown) => isRecord(item) && Object.keys(item).length > 1)) {
      value.forEach((item: unknown, index) => {
        const label = `${humaniseKey(keyPath.join('_'))} ${index + 1}`;
        out.push({ label, value: truncate(inlineValue(key, item, currency, depth + 1), maxValueChars) });
      });
      continue;
    }
    out.push({ label: humaniseKey(keyPath.join('_')), value: truncate(inlineValue(key, value, currency, depth), maxValueChars) });
  }
}

/** Preference among keys that may hold the request's amount; any other money key comes after these. */
const AMOUNT_KEYS = ['totalcost', 'totalamount', 'totalprice', 'total', 'amount', 'price', 'cost', 'fare'];

/** The top-level key holding the request's amount (a finite number under a money key), if any. */
export function amountKeyOf(args: Args): string | undefined {
  const keys = Object.keys(args).filter((key) => typeof args[key] === 'number' && Number.isFinite(args[key]) && isMoneyKey(key));
  const rank = (key: string): number => {
    const index = AMOUNT_KEYS.indexOf(key.toLowerCase().replace(/[_-]/g, ''));
    return index === -1 ? AMOUNT_KEYS.length : index;
  };
  return [...keys].sort((a, b) => rank(a) - rank(b))[0];
}

/**
 * The arguments as lines, in the order of their keys. `undefined` values are left out; the
 * currency key is left out when a money key beside it already shows it.
 *
 * @param maxValueChars - Longest value, in characters; longer values end in `...`.
 */
export function argumentLines(args: Args, maxValueChars: number): ArgumentLine[] {
  const lines: ArgumentLine[] = [];
  collect(args, [], 0, maxValueChars, lines);
  const amountKey = amountKeyOf(args);
  if (amountKey === undefined) return lines;
  const amountLabel = humaniseKey(amountKey);
  return lines.map((line) => (line.label === amountLabel ? { ...line, isAmount: true } : line));
}

/** The request's amount as text (`EUR 412.50`, or the bare number without a currency), if any. */
export function amountText(args: Args): string | undefined {
  const key = amountKeyOf(args);
  const value = key === undefined ? undefined : args[key];
  if (typeof value !== 'number') return undefined;
  const currency = currencyOf(args);
  return currency === undefined ? String(value) : formatMoney(value, currency);
}
