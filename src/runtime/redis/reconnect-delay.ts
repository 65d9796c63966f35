/**
 * The pause before trying again after a failure (a Redis reconnect, a lease or a mailbox that
 * could not be reached): exponential, capped.
 */

/** Shape of the backoff of {@link reconnectDelayMs}. */
export interface ReconnectBackoff {
  /** Delay before the first attempt again, in milliseconds. Default 500. */
  readonly baseDelayMs?: number;
  /** Upper bound of any delay, in milliseconds. Default 20000. */
  readonly maxDelayMs?: number;
}

/**
 * The reconnect backoff of every long-lived Redis client of the service: 100 ms, doubling, at
 * most 2 s. A client notices a restarted Redis within 2 s, which is what `/readyz` and the
 * workers' recovery rest on; a down Redis costs one refused connection per client every 2 s.
 */
export const REDIS_RECONNECT: ReconnectBackoff = { baseDelayMs: 100, maxDelayMs: 2_000 };

/**
 * How long to wait before attempt number `attempt` (1-based): doubles from `baseDelayMs` and
 * never exceeds `maxDelayMs`. As ioredis' `retryStrategy` the client retries for ever.
 *
 * @example
 * reconnectDelayMs(1); // 500
 * reconnectDelayMs(4); // 4000
 * reconnectDelayMs(99); // 20000
 */
export function reconnectDelayMs(attempt: number, backoff: ReconnectBackoff = {}): number {
  const base = backoff.baseDelayMs ?? 500;
  const max = backoff.maxDelayMs ?? 20_000;
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  return Math.min(max, base * 2 ** exponent);
}
