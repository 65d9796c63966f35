import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../protocol/errors.ts';
import { isRedisUnavailable, redisUnavailable } from './redis-unavailable.ts';

describe('isRedisUnavailable', () => {
  it('recognises what ioredis and BullMQ say when Redis cannot be reached', () => {
    const messages = [
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Connection is closed.',
      'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
      'connect ECONNREFUSED 127.0.0.1:6379',
      'LOADING Redis is loading the dataset in memory',
    ];
    expect(messages.map((message) => isRedisUnavailable(new Error(message)))).toEqual(messages.map(() => true));
  });

  it('looks through causes, and leaves every other failure alone', () => {
    const wrapped = new SwitchboardError('internal', 'could not store', { cause: new Error('Connection is closed.') });
    expect(isRedisUnavailable(wrapped)).toBe(true);
    expect(isRedisUnavailable(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(new SwitchboardError('http.bad_request', 'no'))).toBe(false);
    expect(isRedisUnavailable('Connection is closed.')).toBe(false);
  });

  it('leaves a coded failure to its own code, whatever network error it carries', () => {
    const refused = new Error('connect ECONNREFUSED 203.0.113.7:443');
    const provider = new SwitchboardError('delivery.failed', 'WhatsApp Cloud API could not be reached to send: fetch failed (ECONNREFUSED)', { cause: new Error('fetch failed', { cause: refused }) });
    expect(isRedisUnavailable(provider)).toBe(false);
    expect(isRedisUnavailable(new SwitchboardError('internal', 'turn failed', { cause: provider }))).toBe(false);
    expect(isRedisUnavailable(new SwitchboardError('internal', 'could not store', { cause: refused }))).toBe(true);
  });
});

describe('redisUnavailable', () => {
  it('is retryable, tells when to try again, and keeps its cause', () => {
    const cause = new Error('Connection is closed.');
    const error = redisUnavailable(cause);
    expect(error).toMatchObject({ code: 'redis.unavailable', retryable: true, details: { retryAfterSeconds: 2 }, cause });
    expect(redisUnavailable(error)).toBe(error);
  });
});
