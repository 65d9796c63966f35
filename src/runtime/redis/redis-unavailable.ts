/**
 * What a request sees while Redis cannot be reached: one coded error, `redis.unavailable`, that the
 * HTTP layer answers with 503 and `Retry-After`. The service's Redis clients fail fast instead of
 * queueing commands (see {@link serviceRedisOptions} in `redis-client.ts`), so the errors below
 * come at once, and a request that failed is never carried out later behind its answer.
 */
import { SwitchboardError } from '../../protocol/errors.ts';

/** What a client is told to wait before trying again, in seconds. */
export const REDIS_RETRY_AFTER_SECONDS = 2;

/**
 * The messages of ioredis (and of BullMQ, which passes them on) for a command that could not reach
 * Redis: not connected with the offline queue off, the connection closed under it, a command
 * dropped after its retries, a server still loading its data or going down.
 */
const UNREACHABLE_MESSAGES = [
  "Stream isn't writeable",
  'Connection is closed',
  'Reached the max retries per request limit',
  'Command timed out',
  'Redis is not ready',
  'LOADING',
  'MASTERDOWN',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
];

/**
 * Whether `thrown` (or an error in its `cause` chain) says that Redis could not be reached. A coded
 * error on the way decides by its own code: a channel's delivery failure whose cause is a refused
 * connection to its provider (`ECONNREFUSED` too) is about that provider, not Redis.
 */
export function isRedisUnavailable(thrown: unknown): boolean {
  for (let current = thrown, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof SwitchboardError && current.code !== 'internal') return current.code === 'redis.unavailable';
    const { message } = current;
    if (UNREACHABLE_MESSAGES.some((text) => message.includes(text))) return true;
  }
  return false;
}

/**
 * The `redis.unavailable` error for `cause`: retryable, with `details.retryAfterSeconds` (2), which
 * the router sends as `Retry-After`.
 */
export function redisUnavailable(cause?: unknown): SwitchboardError {
  if (cause instanceof SwitchboardError && cause.code === 'redis.unavailable') return cause;
  return new SwitchboardError('redis.unavailable', 'Redis cannot be reached right now. Try again shortly.', {
    details: { retryAfterSeconds: REDIS_RETRY_AFTER_SECONDS },
    retryable: true,
    ...(cause === undefined ? {} : { cause }),
  });
}
