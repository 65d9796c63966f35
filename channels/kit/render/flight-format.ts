/**
 * Small readers and formats for the example app's flight data: local times read from the text of
 * ISO 8601 values (no time-zone conversion, as the data gives local times), prices with their
 * currency sign.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/;
const CURRENCY_SIGNS: Readonly<Record<string, string>> = { GBP: '£', EUR: '€', USD: '$' };

function parts(iso: string): { year: number; month: number; day: number; time?: string } | undefined {
  const match = ISO_LOCAL.exec(iso);
  if (match === null) return undefined;
  const [, year, month, day, hours, minutes] = match;
  const base = { year: Number(year), month: Number(month), day: Number(day) };
  return hours === undefined || minutes === undefined ? base : { ...base, time: `${hours}:${minutes}` };
}

/** `07:25` of an ISO local time; the input itself when it is not one. */
export function localTime(iso: string): string {
  return parts(iso)?.time ?? iso;
}

/** `18 Dec` of an ISO date or date-time; the input itself when it is not one. */
export function dayMonth(iso: string): string {
  const date = parts(iso);
  return date === undefined ? iso : `${date.day} ${MONTHS[date.month - 1] ?? '?'}`;
}

/** `Fri 18 Dec 2026` of an ISO date or date-time; the input itself when it is not one. */
export function longDate(iso: string): string {
  const date = parts(iso);
  if (date === undefined) return iso;
  const weekday = WEEKDAYS[new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()] ?? '';
  return `${weekday} ${date.day} ${MONTHS[date.month - 1] ?? '?'} ${date.year}`;
}

/** ` (+1 day)` when `arrival`'s local date is after `departure`'s, else `''`. */
export function dayShift(departure: string, arrival: string): string {
  const from = parts(departure);
  const to = parts(arrival);
  if (from === undefined || to === undefined) return '';
  const days = Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / 86_400_000);
  return days > 0 ? ` (+${days} day${days === 1 ? '' : 's'})` : '';
}

/** `£187`, `€94.50`, `187 CHF`: whole amounts without decimals, others with two. */
export function money(amount: number, currency: string | undefined): string {
  const number = Number.isInteger(amount) ? String(amount) : amount.toFixed(2);
  const sign = currency === undefined ? undefined : CURRENCY_SIGNS[currency];
  if (sign !== undefined) return `${sign}${number}`;
  return currency === undefined ? number : `${number} ${currency}`;
}

/** `direct`, `1 stop`, `2 stops`. */
export function stopsText(stops: number): string {
  return stops === 0 ? 'direct' : `${stops} stop${stops === 1 ? '' : 's'}`;
}
