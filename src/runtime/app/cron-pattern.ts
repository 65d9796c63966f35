/**
 * Checks of a schedule's cron pattern and time zone, with the cron parser BullMQ's job schedulers
 * use (through BullMQ's own `getNextMillis`), so a pattern accepted here is one the queue runs.
 */
import { getNextMillis } from 'bullmq';
import { messageOf } from './app-problems.ts';

/** The fields of a 6-field pattern; a 5-field pattern has no seconds. */
const FIELDS = 'second minute hour day-of-month month day-of-week';

/**
 * Why `timeZone` is not an IANA time zone this runtime knows, or `undefined` when it is.
 *
 * @example
 * timeZoneProblem('Europe/London'); // undefined
 */
export function timeZoneProblem(timeZone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return undefined;
  } catch {
    return `"${timeZone}" is not an IANA time zone such as Europe/London or UTC`;
  }
}

/**
 * Why `pattern` is not a cron pattern of 5 fields (`minute hour day-of-month month day-of-week`) or
 * 6 (`second` first) that fires at some time, or `undefined` when it is. Names, ranges, steps and
 * lists are as BullMQ's parser reads them (`0-59/15`, `1-5`, `MON`, `JAN`); macros such as
 * `@daily` are refused. `timeZone` must be valid (see {@link timeZoneProblem}).
 *
 * @example
 * cronProblem('0 9 * * 1-5', 'UTC'); // undefined
 * cronProblem('0 25 * * *', 'UTC'); // '"0 25 * * *" is not a valid cron pattern: Constraint error, got value 25 expected range 0-23'
 */
export function cronProblem(pattern: string, timeZone: string): string | undefined {
  const count = pattern.trim().split(/\s+/).length;
  if (count !== 5 && count !== 6) {
    return `"${pattern}" has ${count} field${count === 1 ? '' : 's'}; a cron pattern has 5 (${FIELDS.split(' ').slice(1).join(' ')}) or 6 (${FIELDS})`;
  }
  let next: number | undefined;
  try {
    next = getNextMillis(Date.now(), { pattern, tz: timeZone });
  } catch (error) {
    return `"${pattern}" is not a valid cron pattern: ${messageOf(error)}`;
  }
  return next === undefined ? `"${pattern}" never fires` : undefined;
}
