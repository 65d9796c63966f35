/**
 * The service's pino logger in the shape `@slack/socket-mode` logs through (`@slack/logger`'s
 * `Logger`): its lines joined into one message, at the same level, its level read from pino. The
 * client logs payloads only at debug.
 */
import { LogLevel, type Logger as SlackLogger } from '@slack/socket-mode';
import type { Logger } from 'pino';

/** The `@slack/logger` level of a pino level: trace and debug are debug, fatal and silent are error. */
function slackLevel(level: string): LogLevel {
  if (level === 'trace' || level === 'debug') return LogLevel.DEBUG;
  if (level === 'info') return LogLevel.INFO;
  return level === 'warn' ? LogLevel.WARN : LogLevel.ERROR;
}

const line = (parts: readonly unknown[]): string => parts.map((part) => (part instanceof Error ? part.message : String(part))).join(' ');

/** Wraps `logger`; `setLevel` and `setName` are ignored (the service sets its level). */
export function slackSocketLogger(logger: Logger): SlackLogger {
  return {
    debug: (...parts: unknown[]) => { logger.debug(line(parts)); },
    info: (...parts: unknown[]) => { logger.info(line(parts)); },
    warn: (...parts: unknown[]) => { logger.warn(line(parts)); },
    error: (...parts: unknown[]) => { logger.error(line(parts)); },
    setLevel: () => undefined,
    setName: () => undefined,
    getLevel: () => slackLevel(logger.level),
  };
}
