/**
 * A rate limit per destination (channel + address), shared by every worker through Redis: a
 * sliding-window log of the sends granted in the last window, plus a fair line of the deliveries
 * waiting for a slot. One Lua script decides, on the Redis server's clock, so workers on machines
 * with skewed clocks still agree.
 *
 * A delivery is granted a slot when fewer than `max` sends were granted in the last `durationMs`
 * and no delivery that was held back earlier is still waiting ahead of it. Otherwise it joins the
 * line (once) and is told how long to wait: the time at which the slots ahead of it will have
 * been used and freed again, so deliveries held back together wake up one after another, in line
 * order, instead of all at once. A place in the line lapses `waiterGraceMs` after its wake-up
 * time (a job that was removed, or failed elsewhere), so a vanished job holds up the others for
 * at most that long; a lapsed delivery that does come back joins the end of the line.
 *
 * The channel's shared limits (`send-windows.ts`: its own rate, its methods' rates, a 429 pause)
 * are checked once the destination would grant the slot. A delivery they hold back joins the line
 * all the same, and the first so held is marked: deliveries behind it do not take a slot before it
 * has had its own, even when the shared window resets while it is still on its way back. Without a
 * destination limit the line only keeps order: only its head may go, and the others wait for it.
 *
 * Keys: `<prefix>:outbound-rate:{<channel>:<sha256(address)>}:<sent|line|leases|seq>`, one hash
 * tag per destination so the four keys share a Redis Cluster slot. They expire once idle.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../src/runtime/redis/redis-script.ts';
import { sha256Hex } from './job-ids.ts';
import type { ChannelRateLimit } from './outbound-types.ts';
import { checkPrefix } from './redis-connections.ts';
import { limitArgs, SHARED_WINDOWS_LUA, sharedWindowArgs, sharedWindowKeys, type SharedLimits } from './send-windows.ts';

/**
 * KEYS: 1 sent (zset: grant id -> time), 2 line (zset: job id -> order), 3 leases (hash: job id ->
 * expiry; `~held`: the first in line held back by a shared limit, which those behind it wait
 * for; `~granted`: the call id of the last grant), 4 seq (counter), 5-7 the shared keys of `send-windows.ts`.
 * ARGV: 1 job id, 2 max (0: no destination limit), 3 durationMs, 4 graceMs, 5-8 the shared
 * window arguments of `send-windows.ts`, 9 the call's own random id.
 * Returns 0 when the send may go now, otherwise the wait in milliseconds. The last grant's call
 * id is kept (`~granted` in leases), so the same call sent again (its first answer lost with the
 * connection) is granted as before, not counted twice.
 */
const ACQUIRE = defineScript(`${SHARED_WINDOWS_LUA}
if redis.call('HGET', KEYS[3], '~granted') == ARGV[9] then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local me, max, window, grace = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local shared_keys, shared_args = {KEYS[5], KEYS[6], KEYS[7]}, {ARGV[5], ARGV[6], ARGV[7], ARGV[8]}
while true do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if head == nil or head == me then break end
  if tonumber(redis.call('HGET', KEYS[3], head) or '0') > now then break end
  redis.call('ZREM', KEYS[2], head)
  redis.call('HDEL', KEYS[3], head)
end
local sent, free = {}, 2147483647
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  sent = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  free = max - #sent / 2
end
local rank = redis.call('ZRANK', KEYS[2], me)
if rank == false then rank = redis.call('ZCARD', KEYS[2]) end
local holder = redis.call('HGET', KEYS[3], '~held')
if holder and (holder == me or not redis.call('ZSCORE', KEYS[2], holder)) then holder = nil end
local function behind(who)
  local due = tonumber(redis.call('HGET', KEYS[3], who) or '0') - grace - now
  return math.max(50, due) + 20 * rank
end
local wait, shared_held = 0, false
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if rank < free and max <= 0 and head and head ~= me then
  wait = behind(head)
elseif rank < free then
  wait = shared_wait(shared_keys, shared_args)
  shared_held = wait > 0
  if not shared_held and holder then wait = behind(holder) end
end
if rank < free and wait == 0 then
  if max > 0 then redis.call('ZADD', KEYS[1], now, redis.call('INCR', KEYS[4])) end
  shared_count(shared_keys, shared_args)
  redis.call('ZREM', KEYS[2], me)
  redis.call('HDEL', KEYS[3], me)
  redis.call('HSET', KEYS[3], '~granted', ARGV[9])
  if redis.call('HGET', KEYS[3], '~held') == me then redis.call('HDEL', KEYS[3], '~held') end
else
  if shared_held and not holder then redis.call('HSET', KEYS[3], '~held', me) end
  if rank >= free then
    local index = rank % max
    local slot = now
    if index >= free then slot = tonumber(sent[(index - free) * 2 + 2]) + window end
    wait = slot + window * math.floor(rank / max) - now
  end
  if redis.call('ZSCORE', KEYS[2], me) == false then
    redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), me)
  end
  redis.call('HSET', KEYS[3], me, now + wait + grace)
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1)[1]
local idle = window
if last ~= nil then idle = math.max(idle, tonumber(redis.call('HGET', KEYS[3], last) or '0') - now) end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], idle + window) end
return wait
`);

/** Options of {@link createDestinationRateLimit}. */
export interface DestinationRateLimitOptions {
  /** Client for the limiter's script. Never closed here. */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /**
   * How long past its wake-up time a held-back delivery keeps its place in line, in milliseconds.
   * Default 15000.
   */
  readonly waiterGraceMs?: number;
}

/** The per-destination limiter; see {@link createDestinationRateLimit}. */
export interface DestinationRateLimit {
  /**
   * Takes a send slot for `jobId` towards (`channel`, `address`) under the destination's `limit`
   * (none when undefined) and the channel's `shared` limits (`send-windows.ts`). Resolves to 0 when
   * the send may go now (the slot is then used, and counted in the shared windows), otherwise to
   * the time to wait before asking again, in milliseconds; `jobId` keeps its place in the
   * destination's line meanwhile. Ask again with the same `jobId`.
   */
  acquire(channel: string, address: string, jobId: string, limit: ChannelRateLimit | undefined, shared?: SharedLimits): Promise<number>;
}

/** The Redis key of one part of the limiter state of (`channel`, `address`). */
export function destinationRateKey(prefix: string, channel: string, address: string, part: string): string {
  return `${prefix}:outbound-rate:{${channel}:${sha256Hex(address)}}:${part}`;
}

/** Creates the per-destination limiter on `options.redis`. */
export function createDestinationRateLimit(options: DestinationRateLimitOptions): DestinationRateLimit {
  const prefix = checkPrefix(options.prefix);
  const waiterGraceMs = options.waiterGraceMs ?? 15_000;
  return {
    async acquire(channel, address, jobId, limit, shared = {}) {
      const keys = [...['sent', 'line', 'leases', 'seq'].map((part) => destinationRateKey(prefix, channel, address, part)), ...sharedWindowKeys(prefix, channel, shared)];
      const reply = await runScript(options.redis, ACQUIRE, keys, [jobId, ...limitArgs(limit), waiterGraceMs, ...sharedWindowArgs(shared), randomUUID()]);
      return Math.max(0, Number(reply));
    },
  };
}
