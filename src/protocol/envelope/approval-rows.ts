/**
 * A tool call's arguments as basic-catalog components a person reads: one `Label: value` Text per
 * value, lists for arrays, nested records indented in a List of their own, and money shown with its
 * currency (`Total cost: GBP 236.00`) where an object holds an amount and a `currency`.
 */
import type { A2uiComponent } from './a2ui.ts';

/** Deepest nesting shown; deeper values read `…`. */
export const APPROVAL_ARGS_MAX_DEPTH = 4;

/** Most components the arguments may take; the rest is summed up as `… and more`. */
export const APPROVAL_ARGS_MAX_COMPONENTS = 200;

/** Longest value shown, in characters; longer ones end in `…`. */
export const APPROVAL_VALUE_MAX_CHARS = 200;

/** Keys whose number is an amount of money when the object states a `currency`. */
const MONEY_KEYS = new Set(['amount', 'totalcost', 'total', 'totalamount', 'totalprice', 'price', 'cost', 'fare']);

type Fields = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `totalCost` → `Total cost`, `flight_number` → `Flight number`; all-capital words stay (`IATA code`). */
export function humaniseKey(key: string): string {
  const words = key
    .replace(/[_\-.\s]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .split(' ')
    .filter((word) => word !== '')
    .map((word) => (/^[A-Z0-9]{2,}$/.test(word) ? word : word.toLowerCase()));
  const text = words.join(' ');
  return text === '' ? 'Value' : text.charAt(0).toUpperCase() + text.slice(1);
}

/** `GBP 1,236.00`: the amount with two decimals (as the currency has them) after its code. */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.trim().toUpperCase();
  try {
    return new Intl.NumberFormat('en-GB', { style: 'currency', currency: code, currencyDisplay: 'code' }).format(amount).replace(/\s+/g, ' ');
  } catch {
    return `${code} ${String(amount)}`;
  }
}

function cut(text: string): string {
  return text.length <= APPROVAL_VALUE_MAX_CHARS ? text : `${text.slice(0, APPROVAL_VALUE_MAX_CHARS - 1)}…`;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return cut(String(value));
  return '…';
}

/** The object's currency code, when it states one (`currency`: three letters). */
function currencyOf(object: Fields): string | undefined {
  const currency = object['currency'];
  return typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency.trim()) ? currency.trim().toUpperCase() : undefined;
}

function isMoneyKey(key: string): boolean {
  return MONEY_KEYS.has(key.toLowerCase().replace(/[_-]/g, ''));
}

/** Builds the components; {@link argumentComponents} is its entry point. */
class RowBuilder {
  readonly components: A2uiComponent[] = [];
  readonly #prefix: string;
  #next = 0;
  #full = false;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /**
   * Adds a component and returns its id. Texts stop at {@link APPROVAL_ARGS_MAX_COMPONENTS} (the
   * last one says `… and more`); a container whose rows were started is always added, so the rows
   * made before the limit are shown.
   */
  #add(properties: Omit<A2uiComponent, 'id'>, container = false): string | undefined {
    if (this.#full && !container) return undefined;
    if (!container && this.components.length >= APPROVAL_ARGS_MAX_COMPONENTS - 1) {
      this.#full = true;
      properties = { component: 'Text', variant: 'caption', text: '… and more' };
    }
    const id = `${this.#prefix}-${String(this.#next)}`;
    this.#next += 1;
    this.components.push({ ...properties, id } as A2uiComponent);
    return id;
  }

  text(text: string): string | undefined {
    return this.#add({ component: 'Text', variant: 'body', text });
  }

  /** A labelled block: `Label:` then its inner rows in a List (bulleted for arrays, plain for records). */
  #block(label: string, listStyle: 'unordered' | 'none', inner: () => (string | undefined)[]): (string | undefined)[] {
    const heading = this.text(`${label}:`);
    const children = inner().filter((id): id is string => id !== undefined);
    return [heading, this.#add({ component: 'List', listStyle, children }, true)];
  }

  /** The rows of one object's entries; `depth` 0 is the arguments themselves. */
  entries(object: Fields, depth: number): (string | undefined)[] {
    const currency = currencyOf(object);
    const moneyKeys = Object.keys(object).filter((key) => typeof object[key] === 'number' && isMoneyKey(key));
    const showsCurrency = currency !== undefined && moneyKeys.length > 0;
    return Object.entries(object).flatMap(([key, value]) => {
      if (this.#full || value === undefined || (showsCurrency && key === 'currency')) return [];
      if (showsCurrency && moneyKeys.includes(key)) return [this.text(`${humaniseKey(key)}: ${formatMoney(value as number, currency)}`)];
      return this.#value(humaniseKey(key), value, depth);
    });
  }

  #value(label: string, value: unknown, depth: number): (string | undefined)[] {
    if (!isRecord(value) && !Array.isArray(value)) return [this.text(`${label}: ${scalarText(value)}`)];
    if (depth >= APPROVAL_ARGS_MAX_DEPTH) return [this.text(`${label}: …`)];
    if (Array.isArray(value)) {
      const items = value as unknown[];
      if (items.length === 0) return [this.text(`${label}: none`)];
      return this.#block(label, 'unordered', () => items.flatMap((item) => (this.#full ? [] : this.#item(item, depth + 1))));
    }
    const money = currencyOf(value);
    const amountKey = Object.keys(value).find((key) => typeof value[key] === 'number' && isMoneyKey(key));
    if (money !== undefined && amountKey !== undefined && Object.keys(value).length === 2) {
      return [this.text(`${label}: ${formatMoney(value[amountKey] as number, money)}`)];
    }
    if (Object.keys(value).length === 0) return [this.text(`${label}: none`)];
    return this.#block(label, 'none', () => this.entries(value, depth + 1));
  }

  /** One item of an array: a scalar, a record of one plain value shown as that value, or a record's rows. */
  #item(item: unknown, depth: number): (string | undefined)[] {
    if (Array.isArray(item)) return this.#value('Items', item, depth);
    if (!isRecord(item)) return [this.text(scalarText(item))];
    const values = Object.values(item);
    const [only] = values;
    if (values.length === 1 && !isRecord(only) && !Array.isArray(only)) return [this.text(scalarText(only))];
    if (depth >= APPROVAL_ARGS_MAX_DEPTH) return [this.text('…')];
    const rows = this.entries(item, depth).filter((id): id is string => id !== undefined);
    return [this.#add({ component: 'Column', children: rows }, true)];
  }
}

/**
 * The components showing `args` (ids `<prefix>-<n>`): `ids` are the top-level ones, in argument
 * order, `components` all of them. `(no arguments)` when there are none.
 */
export function argumentComponents(args: Fields, prefix: string): { ids: string[]; components: A2uiComponent[] } {
  const builder = new RowBuilder(prefix);
  const ids = Object.keys(args).length === 0 ? [builder.text('(no arguments)')] : builder.entries(args, 0);
  return { ids: ids.filter((id): id is string => id !== undefined), components: builder.components };
}
