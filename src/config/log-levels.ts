/**
 * The log levels pino accepts, most severe first; `silent` turns logging off.
 * A test keeps this list in step with pino's own.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Whether `value` is one of {@link LOG_LEVELS} (exact, lower case). */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
