/**
 * The periods budgets are counted in: UTC calendar days and months, named so that every process
 * (whatever its time zone) picks the same Redis key for the same moment.
 */

/** A budget period: a UTC calendar day or month. */
export type BudgetPeriod = 'day' | 'month';

/** One day or month as budgets count it. */
export interface PeriodWindow {
  /** `2025-03-07` for a day, `2025-03` for a month. */
  readonly id: string;
  /** When it starts, in ms since the epoch. */
  readonly startsAt: number;
  /** When it ends (the next one starts), in ms since the epoch. */
  readonly endsAt: number;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

function windowOf(period: BudgetPeriod, at: number): PeriodWindow {
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (period === 'month') return { id: `${String(year)}-${twoDigits(month + 1)}`, startsAt: Date.UTC(year, month, 1), endsAt: Date.UTC(year, month + 1, 1) };
  const day = date.getUTCDate();
  return { id: `${String(year)}-${twoDigits(month + 1)}-${twoDigits(day)}`, startsAt: Date.UTC(year, month, day), endsAt: Date.UTC(year, month, day + 1) };
}

/** The last window found of each period: a turn's model call asks for the same day and month ten times. */
const lastWindows: Record<BudgetPeriod, PeriodWindow | undefined> = { day: undefined, month: undefined };

/** The day or month that `at` (ms since the epoch) falls in, in UTC. */
export function periodWindow(period: BudgetPeriod, at: number): PeriodWindow {
  const last = lastWindows[period];
  if (last !== undefined && at >= last.startsAt && at < last.endsAt) return last;
  const found = windowOf(period, at);
  lastWindows[period] = found;
  return found;
}

/**
 * A wait in words, rounded up to the minute: `45 min`, `3 h 12 min`, `2 h`, `1 day 4 h`, `12 days`
 * (whole days and hours from a day on).
 */
export function durationText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return `${String(days)} ${days === 1 ? 'day' : 'days'}${hours > 0 ? ` ${String(hours)} h` : ''}`;
  if (hours > 0) return `${String(hours)} h${rest > 0 ? ` ${String(rest)} min` : ''}`;
  return `${String(rest)} min`;
}

/** When a period that ends at `endsAt` resets, in words: `at 00:00 UTC` (a day) or `on 1 April at 00:00 UTC` (a month). */
export function resetText(period: BudgetPeriod, endsAt: number): string {
  if (period === 'day') return 'at 00:00 UTC';
  const next = new Date(endsAt);
  return `on ${String(next.getUTCDate())} ${MONTH_NAMES[next.getUTCMonth()] ?? ''} at 00:00 UTC`;
}
