/**
 * The limits a channel shares across every conversation and every worker: the whole channel's
 * rate (`ChannelSender.rateLimit`), each provider method's own rate (`methodRateLimits`, e.g.
 * Slack's tiers) and the pause after a 429. They are fixed-window counters in Redis, read and
 * counted by the scripts that already run for a send: the inline claim (`inline-send-scripts.ts`)
 * and the destination limiter of the queue (`destination-rate-limit.ts`). So an inline send and a
 * queued one count against the same windows.
 *
 * A send is counted only when it is granted: a refused one leaves the windows as they were.
 *
 * Keys: `<prefix>:outbound-window:<channel>` for the channel, `<prefix>:outbound-window:<channel>:m:<method>`
 * for a method, `<prefix>:outbound-pause:<channel>` for the pause. Each expires with its window.
 */
import type { ChannelRateLimit, ChannelSender, OutboundDelivery } from './outbound-types.ts';

/** The shared limits one delivery is sent under; see {@link sharedLimitsOf}. */
export interface SharedLimits {
  /** The whole channel's rate, when it has one. */
  readonly channel?: ChannelRateLimit;
  /** The rate of the provider method the delivery calls, when that method has one. */
  readonly method?: { readonly name: string; readonly limit: ChannelRateLimit };
}

/** The shared limits of `delivery` under `sender`. */
export function sharedLimitsOf(sender: ChannelSender, delivery: OutboundDelivery): SharedLimits {
  const name = sender.methodRateLimits === undefined ? undefined : sender.methodOf?.(delivery);
  const limit = name === undefined ? undefined : sender.methodRateLimits?.[name];
  return {
    ...(sender.rateLimit === undefined ? {} : { channel: sender.rateLimit }),
    ...(name === undefined || limit === undefined ? {} : { method: { name, limit } }),
  };
}

/** The key of a channel's pause after a 429 (a plain key with a millisecond expiry). */
export function channelPauseKey(prefix: string, channel: string): string {
  return `${prefix}:outbound-pause:${channel}`;
}

/**
 * The three shared keys of a delivery, in the order {@link SHARED_WINDOWS_LUA} reads them: the
 * channel window, the method window, the pause. A delivery without a method limit gets the
 * channel's own key in the method place; the script never counts it then.
 */
export function sharedWindowKeys(prefix: string, channel: string, limits: SharedLimits): readonly [string, string, string] {
  const channelKey = `${prefix}:outbound-window:${channel}`;
  const methodKey = limits.method === undefined ? channelKey : `${channelKey}:m:${limits.method.name}`;
  return [channelKey, methodKey, channelPauseKey(prefix, channel)];
}

/** A limit as two script arguments: max sends (0: none) and window in milliseconds (1 when none). */
export function limitArgs(limit: ChannelRateLimit | undefined): [number, number] {
  if (limit === undefined) return [0, 1];
  return [Math.max(1, Math.floor(limit.max)), Math.max(1, Math.ceil(limit.durationMs))];
}

/** The four script arguments of {@link SHARED_WINDOWS_LUA}: channel max and window, method max and window. */
export function sharedWindowArgs(limits: SharedLimits): readonly number[] {
  return [...limitArgs(limits.channel), ...limitArgs(limits.method?.limit)];
}

/**
 * Lua put in front of a script that checks the shared limits. It defines
 * `shared_wait(keys, args)`, which answers 0 when a send may go now or the milliseconds until it
 * may try again (the pause, or the reset of the fuller window), and `shared_count(keys, args)`,
 * which counts one granted send in each window. `keys` are the three of {@link sharedWindowKeys};
 * `args` the four of {@link sharedWindowArgs}, as strings.
 */
export const SHARED_WINDOWS_LUA = `
local function window_wait(key, max)
  if max <= 0 then return 0 end
  if tonumber(redis.call('GET', key) or '0') < max then return 0 end
  return math.max(1, redis.call('PTTL', key))
end
local function shared_wait(keys, args)
  local paused = redis.call('PTTL', keys[3])
  if paused > 0 then return paused end
  return math.max(window_wait(keys[1], tonumber(args[1])), window_wait(keys[2], tonumber(args[3])))
end
local function window_count(key, max, window)
  if max <= 0 then return end
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, window) end
end
local function shared_count(keys, args)
  window_count(keys[1], tonumber(args[1]), args[2])
  window_count(keys[2], tonumber(args[3]), args[4])
end
`;
