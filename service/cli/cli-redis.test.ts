/**
 * The CLI beside a running service: with `REDIS_URL` unset, `invite`, `approvals` and `doctor` use
 * the private Redis that `start` keeps in the data folder, and say in one line what to do when no
 * service runs there.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { redeemSignInToken } from '../../channels/web/identity/sign-in-links.ts';
import { startFakeAnthropic } from '../../test/fakes/fake-anthropic.ts';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { addressFileOf } from '../../src/runtime/redis/embedded-redis-address.ts';
import { pidFileOf } from '../../src/runtime/redis/pid-file.ts';
import { connectCliRedis, findCliRedis } from './cli-redis.ts';
import { main } from './main.ts';

let root: string;
let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'switchboard-cli-redis-'));
  fake = await startFakeAnthropic();
});

afterAll(async () => {
  await fake.close();
  await rm(root, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function freshDataDir(): string {
  count += 1;
  return join(root, `case-${count}`, '.data', 'redis');
}

/** Runs `switchboard <args>` in this process with the data folder `dataDir`, capturing what it prints. */
async function cli(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  try {
    const code = await main(args, { PUBLIC_URL: 'https://chat.example.com', ...env }, { redisDataDir: dataDir });
    return { code, out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

const modelEnv = (): Record<string, string> => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url });

describe('the CLI beside a running service (REDIS_URL unset)', () => {
  let service: EmbeddedRedis;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = freshDataDir();
    // As `switchboard start` does.
    service = await startEmbeddedRedis({ dataDir });
  });

  afterAll(async () => {
    await service.stop();
  });

  it("finds the service's private Redis through its data folder", async () => {
    expect(await findCliRedis({ mode: 'embedded', dataDir })).toEqual({
      url: service.url,
      name: "the service's private Redis",
      address: `127.0.0.1:${service.port}`,
    });
  });

  it('invite writes its link into the Redis of the service', async () => {
    const { code, out, err } = await cli(dataDir, ['invite', 'ada']);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const token = /\/signin\/([A-Za-z0-9_-]{22})$/m.exec(out)?.[1] ?? '';
    const redis = new Redis(service.url, { lazyConnect: true });
    try {
      await redis.connect();
      expect(await redeemSignInToken({ redis, prefix: 'sb' }, token)).toEqual({ personId: 'ada', basis: 'invite by operator' });
    } finally {
      await redis.quit();
    }
  });

  it('approvals list reads the Redis of the service', async () => {
    expect(await cli(dataDir, ['approvals', 'list'])).toEqual({ code: 0, out: 'No approvals.\n', err: '' });
  });

  it('doctor checks the Redis of the service and passes', async () => {
    const { code, out } = await cli(dataDir, ['doctor'], modelEnv());
    expect(out).toMatch(new RegExp(`^redis\\s+OK\\s+the service's private Redis \\(127\\.0\\.0\\.1:${service.port}\\) answers, Redis \\d\\S*, noeviction$`, 'm'));
    expect(out).toContain('all checks passed');
    expect(code).toBe(0);
  });
});

describe('the CLI with no service and no REDIS_URL', () => {
  const NO_SERVICE = /^switchboard: No switchboard service is running with its Redis in .*: start it first \(npm start\) from this folder, or set REDIS_URL to the Redis of a running service\.\n$/;

  it.each([[['invite', 'ada']], [['approvals', 'list']], [['approvals', 'show', 'x']]])('%j says so in one line and exits 1, starting no Redis', async (args) => {
    const dataDir = freshDataDir();
    const { code, out, err } = await cli(dataDir, args);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(NO_SERVICE);
    expect(existsSync(pidFileOf(dataDir))).toBe(false);
  });

  it('doctor, before the service starts, reports its Redis as off (npm start starts it), not as a failure', async () => {
    const dataDir = freshDataDir();
    const { code, out, err } = await cli(dataDir, ['doctor'], modelEnv());
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^redis\s+OFF\s+no service runs from this folder yet and REDIS_URL is unset: npm start starts a private redis-server/m);
    expect(out).toMatch(/^model\s+OK/m);
    expect(existsSync(pidFileOf(dataDir))).toBe(false);
  });

  it('treats the address file of a service that is gone as no service', async () => {
    const dataDir = freshDataDir();
    const gone = await startEmbeddedRedis({ dataDir });
    const address = readFileSync(addressFileOf(dataDir), 'utf8');
    await gone.stop();
    writeFileSync(addressFileOf(dataDir), address);
    const { code, err } = await cli(dataDir, ['approvals', 'list']);
    expect(code).toBe(1);
    expect(err).toMatch(NO_SERVICE);
  });

  it('names REDIS_URL and its address, without a stack trace, when that server does not answer', async () => {
    const { code, out, err } = await cli(freshDataDir(), ['approvals', 'list'], { REDIS_URL: 'redis://127.0.0.1:9' });
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/^switchboard: REDIS_URL \(127\.0\.0\.1:9\) does not answer: .*ECONNREFUSED.*\n$/);
    await expect(connectCliRedis({ url: 'redis://127.0.0.1:9', name: 'REDIS_URL', address: '127.0.0.1:9' })).rejects.toMatchObject({ code: 'redis.unavailable' });
  });
});
