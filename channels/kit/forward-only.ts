/**
 * Delivery statuses kept forward only: providers (Twilio, Meta) post them out of order and more
 * than once, so a status is saved only when it ranks above the one saved before.
 */
import { defineScript } from '../../src/runtime/redis/redis-script.ts';

/**
 * KEYS[1]: the message's status hash. ARGV[1]: the status record (JSON); ARGV[2]: its rank (1 and
 * up); ARGV[3]: the hash's TTL in ms. Saves and returns 1 only above the saved rank, else 0.
 */
export const FORWARD_ONLY_STATUS = defineScript(`
local saved = tonumber(redis.call('HGET', KEYS[1], 'rank') or '0')
if tonumber(ARGV[2]) <= saved then return 0 end
redis.call('HSET', KEYS[1], 'rank', ARGV[2], 'record', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);
