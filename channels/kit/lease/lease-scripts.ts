/**
 * The Lua scripts of a lease. KEYS[1] is always the lease key; see `lease-keys.ts` for what it
 * holds. Each script runs atomically, so no other client sees a state in between.
 */
import { defineScript } from '../../../src/runtime/redis/redis-script.ts';

/**
 * Takes the lease if nobody holds it. KEYS[2] is the fence counter; ARGV[1] the owner id, ARGV[2]
 * the TTL in ms. Returns `{1, token}` with the new token, or `{0, pttl}` with the milliseconds
 * left to the current holder.
 */
export const ACQUIRE = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('PTTL', KEYS[1])}
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], string.format('%d', token) .. ':' .. ARGV[1], 'PX', ARGV[2])
return {1, token}
`);

/** Sets the expiry of KEYS[1] to ARGV[2] ms if it still holds ARGV[1]; 1 if extended, else 0. */
export const RENEW = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`);

/** Deletes KEYS[1] if it still holds ARGV[1]; 1 if deleted, else 0. */
export const RELEASE = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);
