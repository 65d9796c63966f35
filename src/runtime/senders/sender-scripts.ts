/**
 * The Lua scripts of the sender store, each atomic on the Redis server. Every key they touch is
 * passed in KEYS and shares the deployment prefix (hash-tagged on a cluster), so they run on one
 * slot.
 */
import { defineScript as define } from '../redis/redis-script.ts';

/**
 * Decides about one message of a sender the policy does not let in by itself (those are checked
 * with two reads, `sender-store.ts`), and does what the decision needs, in one round trip.
 * KEYS: blocked hash, approved hash, held list, the sender's live code (`<expiry ms> <code>`, so that
 * expiry follows the caller's clock), codes issued today,
 * the new code's record, live codes (zset), refused today, seen injection id.
 * ARGV: address, mode, injection JSON, new code, now ms, code ttl ms,
 * codes per day, held cap, held ttl s, refusal ('daily'/'never'), day ttl s, new code's record JSON
 * (the injection, the new code and its record are only read in `pairing` mode).
 * Returns {'blocked'}, {'allowed', held count}, {'refused', notify 0/1}, {'duplicate'},
 * {'collision'} (the new code is taken: try another), {'held', kept 0/1, 'pending'|'limit'} or
 * {'code', kept 0/1} (a new code was issued).
 */
export const ADMIT_SCRIPT = define(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'blocked'} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  return {'allowed', redis.call('LLEN', KEYS[3])}
end
if ARGV[2] == 'allowlist' then
  if ARGV[10] == 'daily' and redis.call('SET', KEYS[8], '1', 'NX', 'EX', ARGV[11]) then return {'refused', 1} end
  return {'refused', 0}
end
if redis.call('EXISTS', KEYS[6]) == 1 then return {'collision'} end
if not redis.call('SET', KEYS[9], '1', 'NX', 'EX', ARGV[9]) then return {'duplicate'} end
local kept = 0
if redis.call('LLEN', KEYS[3]) < tonumber(ARGV[8]) then
  redis.call('RPUSH', KEYS[3], ARGV[3])
  redis.call('EXPIRE', KEYS[3], ARGV[9])
  kept = 1
end
local live = redis.call('GET', KEYS[4])
if live and tonumber(string.match(live, '^(%d+) ')) > tonumber(ARGV[5]) then return {'held', kept, 'pending'} end
if tonumber(redis.call('GET', KEYS[5]) or '0') >= tonumber(ARGV[7]) then return {'held', kept, 'limit'} end
redis.call('INCR', KEYS[5])
redis.call('EXPIRE', KEYS[5], ARGV[11])
redis.call('SET', KEYS[6], ARGV[12], 'PX', ARGV[6])
redis.call('SET', KEYS[4], (tonumber(ARGV[5]) + tonumber(ARGV[6])) .. ' ' .. ARGV[4], 'PX', ARGV[6])
redis.call('ZADD', KEYS[7], tonumber(ARGV[5]) + tonumber(ARGV[6]), ARGV[4])
return {'code', kept}`);

/**
 * Looks a typed code up for an approver, counting the misses. KEYS: the approver's misses, the
 * code's record. ARGV: most misses, window s. Returns {'throttled'}, {'unknown', misses left} or
 * {'found', record JSON}.
 */
export const LOOKUP_SCRIPT = define(`
local misses = tonumber(redis.call('GET', KEYS[1]) or '0')
if misses >= tonumber(ARGV[1]) then return {'throttled'} end
local record = redis.call('GET', KEYS[2])
if record then return {'found', record} end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {'unknown', tonumber(ARGV[1]) - misses - 1}`);

/**
 * Uses a code once: the sender becomes approved. KEYS: the code's record, approved hash, blocked
 * hash, the sender's live code, live codes. ARGV: code, address, approval JSON. Returns {'unknown'}
 * (used or expired meanwhile), {'blocked'} (the code is dropped) or {'approved'}.
 */
export const APPROVE_SCRIPT = define(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown'} end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[5], ARGV[1])
local live = redis.call('GET', KEYS[4])
if live and string.match(live, ' (.+)$') == ARGV[1] then redis.call('DEL', KEYS[4]) end
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return {'blocked'} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {'approved'}`);

/**
 * Approves a sender by address unless blocked. KEYS: approved hash, blocked hash. ARGV: address,
 * approval JSON. Returns {'blocked'} or {'approved'}.
 */
export const ALLOW_SCRIPT = define(`
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'blocked'} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'approved'}`);

/**
 * Blocks a sender: no longer approved, their live code and held messages dropped. KEYS: approved
 * hash, blocked hash, the sender's live code, held list, live codes, the record of the live code
 * read just before. ARGV: address, block JSON, that code ('' when none). (A code issued in between
 * keeps its record until it expires, but {@link APPROVE_SCRIPT} refuses a blocked sender.)
 * Returns the number of held messages dropped.
 */
export const BLOCK_SCRIPT = define(`
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local live = redis.call('GET', KEYS[3])
local code = live and string.match(live, ' (.+)$')
if code then
  redis.call('DEL', KEYS[3])
  redis.call('ZREM', KEYS[5], code)
  if code == ARGV[3] then redis.call('DEL', KEYS[6]) end
end
local dropped = redis.call('LLEN', KEYS[4])
redis.call('DEL', KEYS[4])
return dropped`);
