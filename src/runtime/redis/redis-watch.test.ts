import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { watchRedisConnection } from './redis-watch.ts';

describe('watchRedisConnection', () => {
  it('logs a lost connection once with its last error, and its return once, however many retries', () => {
    const lines: { level: string; fields: object; message: string }[] = [];
    const logger = {
      info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
      warn: (fields: object, message: string) => lines.push({ level: 'warn', fields, message }),
    };
    const client = new EventEmitter();
    watchRedisConnection(client as unknown as Redis, logger, 'commands');

    client.emit('ready');
    expect(lines).toEqual([]);
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:6379');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      client.emit('error', refused);
      client.emit('reconnecting');
    }
    client.emit('ready');
    client.emit('ready');
    expect(lines).toEqual([
      { level: 'warn', fields: { redisClient: 'commands', err: refused }, message: 'redis: connection lost; reconnecting' },
      { level: 'info', fields: { redisClient: 'commands' }, message: 'redis: connection back' },
    ]);
    expect(client.listenerCount('error')).toBe(1);
  });
});
