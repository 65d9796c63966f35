/**
 * The Lua scripts of the approval store, each one atomic on the Redis server, run by SHA-1 with an
 * `EVAL` fallback when the server does not know the script yet.
 */
import { defineScript as define } from '../redis/redis-script.ts';

/**
 * Saves a new pending approval unless its short code is taken in one of the deciders' pending
 * indexes. KEYS: record, audit, all, status:pending, then every pending index of the deciders.
 * ARGV: id, code, record JSON, expiresAt ms, createdAt ms, audit JSON.
 * Returns 1 when saved, 0 when the code is taken, -1 when the id exists.
 */
export const CREATE_SCRIPT = define(`
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
for i = 5, #KEYS do
  if redis.call('HEXISTS', KEYS[i], ARGV[2]) == 1 then return 0 end
end
redis.call('HSET', KEYS[1], 'record', ARGV[3], 'status', 'pending', 'expiresAt', ARGV[4], 'createdAt', ARGV[5], 'shortCode', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
for i = 5, #KEYS do
  redis.call('HSET', KEYS[i], ARGV[2], ARGV[1])
end
return 1`);

/**
 * The compare-and-set `pending → granted | denied | expired`. KEYS: record, audit, status:pending,
 * status:<new>, then every pending index of the deciders. ARGV: id, new status, new record JSON,
 * now ms, whether to enforce expiresAt ('1' or '0'), audit JSON.
 * Returns {'ok'}, {'missing'}, {'decided', record JSON} (status not pending) or {'late', record JSON}
 * (enforced, pending and now > expiresAt: nothing changed).
 */
export const DECIDE_SCRIPT = define(`
local fields = redis.call('HMGET', KEYS[1], 'status', 'record', 'expiresAt', 'createdAt', 'shortCode')
if not fields[1] then return {'missing'} end
if fields[1] ~= 'pending' then return {'decided', fields[2]} end
if ARGV[5] == '1' and tonumber(ARGV[4]) > tonumber(fields[3]) then return {'late', fields[2]} end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'record', ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], fields[4], ARGV[1])
for i = 5, #KEYS do
  if redis.call('HGET', KEYS[i], fields[5]) == ARGV[1] then redis.call('HDEL', KEYS[i], fields[5]) end
end
redis.call('RPUSH', KEYS[2], ARGV[6])
return {'ok'}`);

/**
 * Claims the one execution of a granted approval. KEYS: record, claim. Returns {'first'},
 * {'taken'} or {'not_granted', status} (status '' when the record is missing).
 */
export const CLAIM_SCRIPT = define(`
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'granted' then return {'not_granted', status or ''} end
if redis.call('SET', KEYS[2], '1', 'NX') then return {'first'} end
return {'taken'}`);

/**
 * Saves an execution result once (the first saved wins) with its audit line. KEYS: result, audit.
 * ARGV: result JSON, audit JSON. Returns 1 when saved, 0 when a result was already there.
 */
export const SAVE_RESULT_SCRIPT = define(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  return 1
end
return 0`);
