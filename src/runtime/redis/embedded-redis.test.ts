import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../protocol/errors.ts';
import { startEmbeddedRedis, type EmbeddedRedis, type EmbeddedRedisLogger } from './embedded-redis.ts';
import { addressFileOf, findRunningEmbeddedRedis } from './embedded-redis-address.ts';
import { findFreePort } from './free-port.ts';
import { pingRedis } from './ping-redis.ts';

const root = mkdtempSync(join(tmpdir(), 'switchboard-embedded-redis-'));
const started: EmbeddedRedis[] = [];
const clients: Redis[] = [];
let dirCount = 0;

function freshDir(): string {
  dirCount += 1;
  return join(root, `case-${dirCount}`, 'nested', 'redis');
}

function client(url: string): Redis {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  clients.push(redis);
  return redis;
}

/** Occupies a loopback port until closed. */
async function occupyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { port: address.port, server };
}

async function rejection(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof SwitchboardError)) throw error;
  return error;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((redis) => redis.quit().catch(() => undefined)));
  await Promise.all(started.splice(0).map((redis) => redis.stop()));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('startEmbeddedRedis', () => {
  it('starts a loopback redis-server with AOF and noeviction, and stops it', async () => {
    const dataDir = freshDir();
    const messages: string[] = [];
    const record = (_fields: object, message: string): void => {
      messages.push(message);
    };
    const redis = await startEmbeddedRedis({ dataDir, logger: { debug: record, info: record, warn: record } });
    started.push(redis);
    expect(messages).toContain('embedded redis started');
    expect(messages.some((m) => m.startsWith('redis-server: ') && m.includes('Ready to accept connections'))).toBe(true);
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);

    const connection = client(redis.url);
    await connection.connect();
    expect(await connection.ping()).toBe('PONG');
    expect(await connection.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await connection.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    expect(await connection.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    expect(await connection.config('GET', 'dir')).toEqual(['dir', dataDir]);
    await connection.set('k', 'v');
    await connection.quit();

    await redis.stop();
    await redis.stop();
    expect(messages).toContain('embedded redis stopped');
    expect(messages).not.toContain('embedded redis exited unexpectedly');
    expect(await redis.exited).toMatchObject({ code: 0 });
    expect(await pingRedis(redis.port)).toBe(false);
    expect(existsSync(join(dataDir, 'appendonlydir'))).toBe(true);
    expect(existsSync(join(dataDir, 'redis.pid'))).toBe(false);
  });

  it('keeps data across a restart on the same folder', async () => {
    const dataDir = freshDir();
    const logger: EmbeddedRedisLogger = pino({ level: 'silent' });
    const first = await startEmbeddedRedis({ dataDir, logger });
    started.push(first);
    const a = client(first.url);
    await a.connect();
    await a.set('survives', 'yes');
    await a.quit();
    await first.stop();

    const second = await startEmbeddedRedis({ dataDir });
    started.push(second);
    const b = client(second.url);
    await b.connect();
    expect(await b.get('survives')).toBe('yes');
  });

  it('kills the server at once (SIGKILL), runs with the appendFsync asked for, and keeps acknowledged writes', async () => {
    const dataDir = freshDir();
    const messages: string[] = [];
    const record = (_fields: object, message: string): void => {
      messages.push(message);
    };
    const first = await startEmbeddedRedis({ dataDir, appendFsync: 'always', logger: { debug: record, info: record, warn: record } });
    started.push(first);
    const a = client(first.url);
    await a.connect();
    expect(await a.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
    await a.set('acknowledged', 'yes');

    await first.kill();
    await first.kill();
    expect(await first.exited).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(messages).toContain('embedded redis killed');
    expect(messages).not.toContain('embedded redis exited unexpectedly');
    expect(await pingRedis(first.port)).toBe(false);

    const second = await startEmbeddedRedis({ dataDir, port: first.port });
    started.push(second);
    const b = client(second.url);
    await b.connect();
    expect(await b.get('acknowledged')).toBe('yes');
  });

  it('refuses a data folder that a running server owns', async () => {
    const dataDir = freshDir();
    const redis = await startEmbeddedRedis({ dataDir });
    started.push(redis);
    const error = await rejection(startEmbeddedRedis({ dataDir }));
    expect(error.code).toBe('config.invalid');
    expect(error.message).toContain('already using');
  });

  it('ignores a pid file left by a dead process', async () => {
    const dataDir = freshDir();
    await startEmbeddedRedis({ dataDir }).then((redis) => redis.stop());
    writeFileSync(join(dataDir, 'redis.pid'), '2147483646\n');
    const redis = await startEmbeddedRedis({ dataDir });
    started.push(redis);
    expect(await pingRedis(redis.port)).toBe(true);
  });

  it('tries another port when the chosen one is taken', async () => {
    const taken = await occupyPort();
    try {
      const ports = [taken.port, await findFreePort()];
      const redis = await startEmbeddedRedis({
        dataDir: freshDir(),
        choosePort: () => Promise.resolve(ports.shift() ?? 0),
      });
      started.push(redis);
      expect(redis.port).not.toBe(taken.port);
      expect(ports).toEqual([]);
    } finally {
      taken.server.close();
    }
  });

  it('reports an explicit port that is taken as a configuration error', async () => {
    const taken = await occupyPort();
    try {
      const error = await rejection(startEmbeddedRedis({ dataDir: freshDir(), port: taken.port }));
      expect(error.code).toBe('config.invalid');
      expect(error.message).toContain(`port ${taken.port}`);
    } finally {
      taken.server.close();
    }
  });

  it('records its address in the data folder while it runs, for the CLI to find', async () => {
    const dataDir = freshDir();
    expect(await findRunningEmbeddedRedis(dataDir)).toBeUndefined();
    const redis = await startEmbeddedRedis({ dataDir });
    started.push(redis);
    const found = await findRunningEmbeddedRedis(dataDir);
    expect(found).toMatchObject({ url: redis.url, host: '127.0.0.1', port: redis.port });
    expect(found?.pid).toBeGreaterThan(0);
    await redis.stop();
    expect(existsSync(addressFileOf(dataDir))).toBe(false);
    expect(await findRunningEmbeddedRedis(dataDir)).toBeUndefined();

    const again = await startEmbeddedRedis({ dataDir });
    started.push(again);
    expect((await findRunningEmbeddedRedis(dataDir))?.port).toBe(again.port);
    await again.kill();
    expect(existsSync(addressFileOf(dataDir))).toBe(false);
  });

  it('treats a stale or unreadable address file as no server', async () => {
    const dataDir = freshDir();
    const redis = await startEmbeddedRedis({ dataDir });
    started.push(redis);
    const live = readFileSync(addressFileOf(dataDir), 'utf8');
    await redis.stop();
    // Left behind as by a service killed with SIGKILL: its server is gone.
    writeFileSync(addressFileOf(dataDir), live);
    expect(await findRunningEmbeddedRedis(dataDir)).toBeUndefined();
    // A live process, but nothing answers on the port.
    const { port, server } = await occupyPort();
    server.close();
    writeFileSync(addressFileOf(dataDir), JSON.stringify({ host: '127.0.0.1', port, pid: process.pid }));
    expect(await findRunningEmbeddedRedis(dataDir, 200)).toBeUndefined();
    for (const text of ['', '{', '[]', JSON.stringify({ host: '127.0.0.1', port: 'x', pid: 1 })]) {
      writeFileSync(addressFileOf(dataDir), text);
      expect(await findRunningEmbeddedRedis(dataDir)).toBeUndefined();
    }
  });

  it('kills the server when the parent process exits without stopping it', async () => {
    const module = new URL('./embedded-redis.ts', import.meta.url).href;
    const dataDir = freshDir();
    const script = [
      `const { startEmbeddedRedis } = await import(${JSON.stringify(module)});`,
      `const redis = await startEmbeddedRedis({ dataDir: ${JSON.stringify(dataDir)} });`,
      'console.log(redis.port);',
      'process.exit(0);',
    ].join('\n');
    const parent = spawn(process.execPath, ['--input-type=module', '--eval', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    parent.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const [code] = (await once(parent, 'exit')) as [number | null];
    expect(code).toBe(0);
    const port = Number(stdout.trim());
    expect(port).toBeGreaterThan(0);
    let alive = true;
    for (let i = 0; i < 40 && alive; i += 1) {
      alive = await pingRedis(port);
      if (alive) await sleep(50);
    }
    expect(alive).toBe(false);
    expect(existsSync(addressFileOf(dataDir))).toBe(false);
  });

  it('says how to fix a missing binary', async () => {
    const error = await rejection(startEmbeddedRedis({ dataDir: freshDir(), binary: '/nonexistent/redis-server' }));
    expect(error.code).toBe('config.invalid');
    expect(error.message).toContain('/nonexistent/redis-server');
    expect(error.message).toContain('apt-get install redis-server');
    expect(error.message).toContain('brew install redis');
    expect(error.message).toContain('REDIS_URL');
  });

  it("quotes the server's last output when it exits early", async () => {
    const silent = await rejection(startEmbeddedRedis({ dataDir: freshDir(), binary: 'false' }));
    expect(silent.code).toBe('internal');
    expect(silent.message).toMatch(/exited \(code 1\) before answering PING\. It printed nothing\./);
    // `sh` rejects redis-server's arguments with a message on stderr.
    const noisy = await rejection(startEmbeddedRedis({ dataDir: freshDir(), binary: 'sh' }));
    expect(noisy.message).toMatch(/Its last output:\n {2}.*Illegal option/);
    expect(noisy.details['output']).toEqual([expect.stringContaining('Illegal option')]);
  });
});
