/**
 * Single values as a person reads them, in plain text safe for SMS (no typographic characters
 * added): ISO dates and times, money, booleans, long strings.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** `2026-12-18`, optionally followed by a time and an offset (`T07:25`, `:00.000`, `Z` / `+01:00`). */
const ISO_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A calendar day as `Fri 18 Dec 2026` (`year`, `month` 1-12, `day` 1-31); `undefined` when no such day exists. */
export function formatCalendarDay(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${WEEKDAYS[date.getUTCDay()] ?? ''} ${day} ${MONTHS[month - 1] ?? ''} ${year}`;
}

function offsetLabel(offset: string): string {
  if (offset.toUpperCase() === 'Z') return 'UTC';
  const normal = offset.includes(':') ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;
  return normal === '+00:00' || normal === '-00:00' ? 'UTC' : `UTC${normal}`;
}

/**
 * An ISO 8601 date or date-time as written, readable: `2026-12-18` → `Fri 18 Dec 2026`;
 * `2026-12-18T07:25:00+01:00` → `Fri 18 Dec 2026, 07:25 UTC+01:00` (the wall time as written, not
 * converted, so a local departure stays local). `undefined` when `text` is not such a date.
 */
export function formatIsoText(text: string): string | undefined {
  const match = ISO_TEXT.exec(text.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, , offset] = match;
  const dayText = formatCalendarDay(Number(year), Number(month), Number(day));
  if (dayText === undefined) return undefined;
  if (hour === undefined || minute === undefined) return dayText;
  if (Number(hour) > 23 || Number(minute) > 59) return undefined;
  return `${dayText}, ${hour}:${minute}${offset === undefined ? '' : ` ${offsetLabel(offset)}`}`;
}

/**
 * An amount with its ISO 4217 currency code in front, grouped and with the currency's usual
 * decimals: `EUR 1,412.50`, `JPY 1,413`. An unknown code is kept as given: `XBT 0.5`.
 */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.trim().toUpperCase();
  try {
    const text = new Intl.NumberFormat('en-GB', { style: 'currency', currency: code, currencyDisplay: 'code' }).format(amount);
    return text.replace(/\s+/gu, ' ');
  } catch {
    return `${code} ${String(amount)}`;
  }
}

/**
 * Shortens `text` to at most `maxChars` characters (code points), ending in `...` when cut.
 * `maxChars` below 4 is treated as 4.
 */
export function truncate(text: string, maxChars: number): string {
  const chars = Array.from(text);
  const limit = Math.max(4, Math.floor(maxChars));
  if (chars.length <= limit) return text;
  return `${chars.slice(0, limit - 3).join('').trimEnd()}...`;
}

/** A string on one line: control characters and runs of whitespace (newlines too) become one space. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return text.replace(/[\u0000-\u001f\u007f\s]+/gu, ' ').trim();
}

/**
 * A scalar argument value as text: strings on one line with ISO dates made readable, booleans as
 * `yes`/`no`, `null` as `none`, numbers as written. Not truncated.
 */
export function formatScalar(value: string | number | bigint | boolean | null): string {
  if (value === null) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  const line = oneLine(value);
  if (line === '') return '(empty)';
  return formatIsoText(line) ?? line;
}
