/**
 * An example {@link ToolSentence} for the example app's `book_flight` tool. The app registers it;
 * the kit does not hard-wire any tool.
 *
 * @example
 * approvalRequestText(record, { sentences: { book_flight: bookFlightSentence } });
 */
import { currencyOf } from './argument-lines.ts';
import { formatMoney, formatScalar, oneLine } from './format-value.ts';
import type { ToolSentence } from './describe-request.ts';

/** `Ada`, `Ada and Grace`, `Ada, Grace and Alan`. */
function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

function passengerNames(passengers: unknown): string[] {
  if (!Array.isArray(passengers)) return [];
  return passengers.flatMap((passenger: unknown) => {
    const name = typeof passenger === 'object' && passenger !== null ? (passenger as Record<string, unknown>)['fullName'] : passenger;
    return typeof name === 'string' && name.trim() !== '' ? [oneLine(name)] : [];
  });
}

/**
 * `book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace and Grace Hopper, EUR 412.50`. Parts
 * whose arguments are missing or of the wrong type are left out; more than three passengers read
 * `for Ada Lovelace and 3 others`.
 */
export const bookFlightSentence: ToolSentence = (args) => {
  const flight = typeof args['flightNumber'] === 'string' ? ` ${oneLine(args['flightNumber'])}` : '';
  const date = typeof args['date'] === 'string' ? ` on ${formatScalar(args['date'])}` : '';
  const names = passengerNames(args['passengers']);
  const first = names[0] ?? '';
  const who = names.length === 0 ? '' : names.length > 3 ? ` for ${first} and ${names.length - 1} others` : ` for ${listWords(names)}`;
  const total = args['totalCost'];
  const currency = currencyOf(args);
  const cost = typeof total === 'number' && Number.isFinite(total) ? `, ${currency === undefined ? String(total) : formatMoney(total, currency)}` : '';
  return `book flight${flight}${date}${who}${cost}`;
};
