import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { defineScript, runScript } from './redis-script.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await redis.quit();
});

const INCR_BY = defineScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`);

describe('runScript', () => {
  it('runs a script the server has not cached (EVAL after NOSCRIPT), then by its SHA-1', async () => {
    await redis.script('FLUSH');
    const key = `${prefix()}:counter`;
    expect(await runScript(redis, INCR_BY, [key], [2])).toBe(2);
    expect(await redis.script('EXISTS', INCR_BY.sha1)).toEqual([1]);
    expect(await runScript(redis, INCR_BY, [key], ['3'])).toBe(5);
  });

  it('rejects with the script\'s own error, not retried as EVAL', async () => {
    const key = `${prefix()}:list`;
    await redis.rpush(key, 'not a number');
    await expect(runScript(redis, INCR_BY, [key], [1])).rejects.toThrow(/WRONGTYPE/);
    expect(await redis.lrange(key, 0, -1)).toEqual(['not a number']);
  });
});
