/**
 * The Lua scripts of the inline first attempt (see `inline-send.ts`), one round trip each. They
 * share their keys with the delivery ledger (`delivery-ledger.ts`) and the destination limiter
 * (`destination-rate-limit.ts`), so an inline send and a queued one see the same state.
 */
import { defineScript } from '../src/runtime/redis/redis-script.ts';
import { SHARED_WINDOWS_LUA } from './send-windows.ts';
import { CALL_RECORD_LUA } from './call-record.ts';
import { INLINE_INTENT_JOB_ID } from './delivery-ledger.ts';

/**
 * Claims an inline send of one delivery, or says why it must go another way.
 *
 * KEYS: 1 ledger hash, 2 outbox deadlines (zset key -> ms), 3 outbox deliveries (hash key -> JSON),
 * 4 destination `sent` zset, 5 destination `line` zset, 6 destination `leases` hash,
 * 7 destination `seq` counter, 8-10 the shared keys of `send-windows.ts` (channel window, method
 * window, pause).
 * ARGV: 1 idempotency key, 2 delivery JSON, 3 lease ms, 4 ledger ttl ms, 5 destination max (0: no
 * limit), 6 destination window ms, 7 queue job id, 8 line grace ms, 9-12 the shared window
 * arguments of `send-windows.ts`.
 *
 * Returns `{'go'}` (intent recorded, outbox entry written), `{'sent', receipt}`, `{'inflight'}` (an
 * inline send of this key is under way elsewhere), `{'queue'}` (the queue has it or must), or
 * `{'limited'}` (over a limit or paused: the job waits in line for the destination; held by a
 * shared limit, it is marked as the one those behind it wait for).
 */
export const CLAIM_INLINE = defineScript(`${SHARED_WINDOWS_LUA}
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'sent' then return {'sent', redis.call('HGET', KEYS[1], 'receipt')} end
if state then
  if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return {'inflight'} end
  return {'queue'}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local max, window = tonumber(ARGV[5]), tonumber(ARGV[6])
local shared_keys, shared_args = {KEYS[8], KEYS[9], KEYS[10]}, {ARGV[9], ARGV[10], ARGV[11], ARGV[12]}
local limited = redis.call('ZCARD', KEYS[5]) > 0
if not limited and max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - window)
  limited = redis.call('ZCARD', KEYS[4]) >= max
end
local shared_held = false
if not limited then
  shared_held = shared_wait(shared_keys, shared_args) > 0
  limited = shared_held
end
if limited then
  if shared_held then redis.call('HSET', KEYS[6], '~held', ARGV[7]) end
  if redis.call('ZSCORE', KEYS[5], ARGV[7]) == false then
    redis.call('ZADD', KEYS[5], redis.call('INCR', KEYS[7]), ARGV[7])
    redis.call('HSET', KEYS[6], ARGV[7], now + window + tonumber(ARGV[8]))
    for i = 5, 7 do redis.call('PEXPIRE', KEYS[i], window + tonumber(ARGV[8])) end
  end
  return {'limited'}
end
shared_count(shared_keys, shared_args)
if max > 0 then
  redis.call('ZADD', KEYS[4], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[4], window)
end
redis.call('HSET', KEYS[1], 'state', 'sending', 'sendingSince', now, 'jobId', '${INLINE_INTENT_JOB_ID}', 'idempotencyKey', ARGV[1], 'sendCalls', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return {'go'}
`);

/**
 * Ends an inline send: records its receipt and drops the outbox entry, or records its failure
 * (never over a receipt) and keeps the entry until the queue has the delivery (the caller drops it
 * then; a crash in between leaves it to the sweeper).
 *
 * KEYS: 1 ledger hash, 2 outbox deadlines, 3 outbox deliveries.
 * ARGV: 1 idempotency key, 2 'sent' or 'failed', 3 receipt JSON or error message, 4 ledger ttl ms.
 */
export const SETTLE_INLINE = defineScript(`
local now = redis.call('TIME')[1] * 1000
if ARGV[2] == 'sent' then
  redis.call('HSET', KEYS[1], 'state', 'sent', 'receipt', ARGV[3], 'sentAt', now)
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
elseif redis.call('HGET', KEYS[1], 'state') ~= 'sent' then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'lastError', ARGV[3], 'failedAt', now)
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);

/**
 * Takes up to ARGV[1] outbox entries whose lease ran out (their sender died mid-send): returns
 * `key, delivery JSON` pairs and pushes their deadline ARGV[2] ms on, so two sweepers do not both
 * take one for long; the caller hands each to the queue and then drops it. What a pass took is
 * kept for ARGV[2] ms under the pass's own key, KEYS[3] (`call-record.ts`), so the same pass sent
 * again gets the same entries instead of none.
 *
 * KEYS: 1 outbox deadlines, 2 outbox deliveries, 3 this pass's record.
 */
export const TAKE_EXPIRED = defineScript(`${CALL_RECORD_LUA}
local previous = taken_before(KEYS[3])
if previous then return previous end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local keys = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local taken = {}
for _, key in ipairs(keys) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), key)
  taken[#taken + 1] = key
  taken[#taken + 1] = redis.call('HGET', KEYS[2], key) or ''
end
keep_taken(KEYS[3], taken, ARGV[2])
return taken
`);

/**
 * Renews the leases of inline sends under way: each outbox entry ARGV[2..] still there gets the
 * deadline now + ARGV[1] ms. KEYS: 1 outbox deadlines.
 */
export const RENEW_LEASES = defineScript(`
local time = redis.call('TIME')
local due = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', due, ARGV[i]) end
return 1
`);

/** Drops one outbox entry. KEYS: 1 outbox deadlines, 2 outbox deliveries. ARGV: 1 idempotency key. */
export const DROP_ENTRY = defineScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`);
