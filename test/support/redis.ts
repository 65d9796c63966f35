import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';

/**
 * Gives a test file one Redis: the server named by `REDIS_URL` when the environment sets it (an
 * outside test runner), otherwise a private `redis-server` started before the file's tests in a
 * fresh temporary folder and stopped (folder removed) after them.
 *
 * Call it at the top level of a test file, or inside a `describe`. Share the server between tests
 * safely with {@link useKeyPrefix}.
 *
 * @returns A getter for the Redis URL; it throws when called before `beforeAll` has run.
 *
 * @example
 * const redisUrl = useRedis();
 * it('enqueues', async () => { const queue = new Queue('q', { connection: { url: redisUrl() } }); ... });
 */
export function useRedis(): () => string {
  let url: string | undefined;
  let embedded: EmbeddedRedis | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    const outside = process.env['REDIS_URL']?.trim();
    if (outside !== undefined && outside !== '') {
      url = outside;
      return;
    }
    dataDir = await mkdtemp(join(tmpdir(), 'switchboard-test-redis-'));
    embedded = await startEmbeddedRedis({ dataDir });
    url = embedded.url;
  });

  afterAll(async () => {
    await embedded?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    url = undefined;
  });

  return () => {
    if (url === undefined) throw new Error('useRedis(): the Redis URL is only available inside tests and hooks that run after beforeAll');
    return url;
  };
}

/**
 * A fresh prefix for keys and queue names: `t-<label>-<12 hex digits>`, made of `[a-z0-9-]` only, so
 * it is valid both as a BullMQ queue name and as a key prefix (`${prefix}:...`).
 *
 * @param label - Readable part, cut to 40 characters after lower-casing and replacing runs of other
 *   characters with `-`. Default `test`.
 */
export function uniquePrefix(label = 'test'): string {
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 40)
      .replace(/^-+|-+$/g, '') || 'test';
  return `t-${slug}-${randomBytes(6).toString('hex')}`;
}

/**
 * Gives every test its own {@link uniquePrefix} (labelled with the test's name), so that tests
 * sharing one Redis never see each other's keys. With `redisUrl`, after each test every key equal
 * to the prefix or starting with `<prefix>:` is deleted, which keeps an outside Redis clean.
 *
 * @param redisUrl - Getter from {@link useRedis}; omit to skip clean-up.
 * @returns A getter for the current test's prefix.
 *
 * @example
 * const redisUrl = useRedis();
 * const prefix = useKeyPrefix(redisUrl);
 * it('works', async () => { const queue = new Queue('jobs', { prefix: prefix(), connection }); });
 */
export function useKeyPrefix(redisUrl?: () => string): () => string {
  let prefix: string | undefined;

  beforeEach(() => {
    prefix = uniquePrefix(expect.getState().currentTestName ?? 'test');
  });

  afterEach(async () => {
    const current = prefix;
    prefix = undefined;
    if (current !== undefined && redisUrl !== undefined) await deleteKeys(redisUrl(), current);
  });

  return () => {
    if (prefix === undefined) throw new Error('useKeyPrefix(): the prefix is only available inside a test');
    return prefix;
  };
}

/** Deletes `prefix` and every key under `prefix:`, scanning in batches. */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const escaped = prefix.replace(/[*?[\]\\]/g, '\\$&');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escaped}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
    await redis.unlink(prefix);
  } finally {
    redis.disconnect();
  }
}
