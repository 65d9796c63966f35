/**
 * Times in answers and requests, relative to a clock: `in 4 hours`, `15:30 UTC`, `15:30 UTC on Sat
 * 3 Jan 2030` (the day only when it is not today in the time zone).
 */
import { formatCalendarDay } from './format-value.ts';
import { checkTimeZone } from '../../../src/protocol/envelope/iso-offset.ts';

/** Checks an IANA time zone name (`UTC`, `Europe/London`) and returns it; the protocol's check. */
export { checkTimeZone };

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * A duration in words, rounded as a person would say it: under a minute → `less than a minute`;
 * under an hour → minutes; under 3 hours → hours and minutes (`1 hour 30 minutes`); under 48
 * hours → whole hours; else whole days. Negative durations count as zero.
 *
 * @param ms - The duration, in milliseconds.
 */
export function durationWords(ms: number): string {
  const safe = Math.max(0, ms);
  const minutes = Math.floor(safe / MINUTE_MS);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return plural(minutes, 'minute');
  if (safe < 3 * HOUR_MS) {
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
  }
  if (safe < 48 * HOUR_MS) return plural(Math.round(safe / HOUR_MS), 'hour');
  return plural(Math.round(safe / DAY_MS), 'day');
}

interface ZonedParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly clock: string;
}

function zoned(at: Date, timeZone: string): ZonedParts {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  return { year: Number(part('year')), month: Number(part('month')), day: Number(part('day')), clock: `${part('hour')}:${part('minute')}` };
}

/** How a zone is named after a clock time: `UTC` for UTC, else the IANA name. */
function zoneLabel(timeZone: string): string {
  return ['UTC', 'ETC/UTC', 'GMT', 'ETC/GMT', 'Z'].includes(timeZone.toUpperCase()) ? 'UTC' : timeZone;
}

/**
 * `15:30 UTC` when `at` falls on the same day as `now` in `timeZone`, else `15:30 UTC on Sat 3 Jan
 * 2030`. `timeZone` must be valid (see {@link checkTimeZone}).
 */
export function clockTime(at: Date, now: Date, timeZone: string): string {
  const when = zoned(at, timeZone);
  const today = zoned(now, timeZone);
  const label = `${when.clock} ${zoneLabel(timeZone)}`;
  if (when.year === today.year && when.month === today.month && when.day === today.day) return label;
  return `${label} on ${formatCalendarDay(when.year, when.month, when.day) ?? ''}`;
}

/** {@link clockTime} of an ISO 8601 string; the string itself when it is not a date. */
export function clockTimeOf(iso: string, now: Date, timeZone: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : clockTime(at, now, timeZone);
}

/**
 * How an expiry reads at `now`: `expires in 4 hours, at 15:30 UTC`, or `expired at 15:30 UTC`
 * once past. `expired` tells which.
 */
export function expiryPhrase(expiresAt: string, now: Date, timeZone: string): { readonly text: string; readonly expired: boolean } {
  const at = new Date(expiresAt);
  if (Number.isNaN(at.getTime())) return { text: `expires at ${expiresAt}`, expired: false };
  const left = at.getTime() - now.getTime();
  if (left <= 0) return { text: `expired at ${clockTime(at, now, timeZone)}`, expired: true };
  return { text: `expires in ${durationWords(left)}, at ${clockTime(at, now, timeZone)}`, expired: false };
}
