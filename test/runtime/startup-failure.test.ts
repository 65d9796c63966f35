/**
 * A start-up that fails half-way (here: the HTTP port is taken) closes everything it opened: no
 * Redis connection, queue or worker is left behind, so the process can exit.
 */
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { startService } from '../../service/create-service.ts';
import { uniquePrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => { resolve((server.address() as { port: number }).port); }));
}

describe('a start-up that fails', () => {
  it('on a port in use, says so naming PORT and leaves no Redis connection open', async () => {
    const taken = createServer();
    const port = await listen(taken);
    const probe = new Redis(redisUrl());
    const name = `startup-${String(Date.now())}`;
    try {
      const count = async (): Promise<number> => String(await probe.call('CLIENT', 'LIST')).split('\n').filter((line) => line.length > 0).length;
      const before = await count();
      const env = loadEnv({ ANTHROPIC_API_KEY: 'test-key', SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', PORT: String(port) }, { appDir });
      await expect(startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix: uniquePrefix(name), port })).rejects.toThrow(/Port \d+ is already in use \(EADDRINUSE\): set PORT/);
      await waitFor(async () => (await count()) <= before, 'every connection the start opened is closed', 10_000);
      expect(await count()).toBeLessThanOrEqual(before);
    } finally {
      probe.disconnect();
      taken.close();
    }
  });

  it('with REDIS_URL pointing at nothing, names the address and the variable to check, never the password', async () => {
    const unreachable = 'redis://:secret-password@127.0.0.1:1';
    const env = loadEnv({ ANTHROPIC_API_KEY: 'test-key', SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', REDIS_URL: unreachable }, { appDir });
    const started = startService({ env, role: 'all', redisUrl: unreachable, logger: pino({ level: 'silent' }), prefix: uniquePrefix('unreachable'), port: 0 });
    const error = await started.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^Redis at 127\.0\.0\.1:1 \(REDIS_URL\) did not answer within 10 s: check that Redis runs there and that REDIS_URL points at it\.$/);
    expect((error as Error).message).not.toContain('secret-password');
  }, 20_000);
});
