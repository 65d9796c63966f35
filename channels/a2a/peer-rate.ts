/**
 * How often one peer may call, across every web process: a fixed window per peer counted in Redis.
 * A peer over its rate gets 429 with the seconds left in the window as `Retry-After`.
 */
import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../../src/runtime/redis/redis-script.ts';

/** Default calls one peer may make per window: 600. */
export const DEFAULT_PEER_CALLS_PER_WINDOW = 600;

/** Default window length, in milliseconds: one minute. */
export const DEFAULT_PEER_WINDOW_MS = 60_000;

/** Counts one call; answers the count and the window's milliseconds left. */
const COUNT_SCRIPT = defineScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }`);

/** Options of {@link createPeerRate}. */
export interface PeerRateOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** Calls per window per peer. Default {@link DEFAULT_PEER_CALLS_PER_WINDOW}. */
  readonly max?: number;
  /** Window length, in ms. Default {@link DEFAULT_PEER_WINDOW_MS}. */
  readonly windowMs?: number;
}

/**
 * Counts calls per peer; `retryAfterSeconds(peerId)` resolves `undefined` while the peer is within
 * its rate, else the whole seconds until its window ends (at least 1).
 */
export function createPeerRate(options: PeerRateOptions): { retryAfterSeconds(peerId: string): Promise<number | undefined> } {
  const max = options.max ?? DEFAULT_PEER_CALLS_PER_WINDOW;
  const windowMs = options.windowMs ?? DEFAULT_PEER_WINDOW_MS;
  return {
    async retryAfterSeconds(peerId) {
      const window = Math.floor(Date.now() / windowMs);
      const key = `${options.prefix}:a2a:rate:${peerId}:${String(window)}`;
      const [count, leftMs] = (await runScript(options.redis, COUNT_SCRIPT, [key], [windowMs])) as [number, number];
      if (count <= max) return undefined;
      return Math.max(1, Math.ceil(leftMs / 1000));
    },
  };
}
