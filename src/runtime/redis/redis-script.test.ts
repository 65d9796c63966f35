import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { defineScript, runScript } from './redis-script.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const INCR_BY = defineScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`);

describe('runScript', () => {
  it('runs a script the server has not cached (EVAL after NOSCRIPT), then by its SHA-1', async () => {
    const redis = await connect();
    await redis.script('FLUSH');
    const key = `${prefix()}:counter`;
    expect(await runScript(redis, INCR_BY, [key], [2])).toBe(2);
    expect(await redis.script('EXISTS', INCR_BY.sha1)).toEqual([1]);
    expect(await runScript(redis, INCR_BY, [key], ['3'])).toBe(5);
  });

  it('rejects with the script\'s own error, not retried as EVAL', async () => {
    const redis = await connect();
    const key = `${prefix()}:list`;
    await redis.rpush(key, 'not a number');
    await expect(runScript(redis, INCR_BY, [key], [1])).rejects.toThrow(/WRONGTYPE/);
    expect(await redis.lrange(key, 0, -1)).toEqual(['not a number']);
  });
});
