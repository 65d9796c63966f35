import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../protocol/errors.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import { createRedisArtifactStore, normaliseMimeType, sanitiseFileName } from './redis-artifact-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const NOW = new Date('2030-01-01T10:00:00.000Z');

describe('the Redis artifact store', () => {
  it('keeps the bytes byte-identical with their meta', async () => {
    const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix(), clock: () => NOW });
    const bytes = new Uint8Array(randomBytes(70_000));
    const meta = await store.put({ name: 'Ticket SB7K2M9Q.pdf', mimeType: 'Application/PDF; charset=binary', bytes });
    expect(meta).toEqual({
      artifactId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown,
      name: 'Ticket SB7K2M9Q.pdf',
      mimeType: 'application/pdf',
      sizeBytes: 70_000,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      createdAt: NOW.toISOString(),
    });
    const found = await store.get(meta.artifactId);
    expect(found?.meta).toEqual(meta);
    expect(found?.bytes.equals(Buffer.from(bytes))).toBe(true);
    expect(await store.meta(meta.artifactId)).toEqual(meta);
  });

  it('stores a view into a larger buffer as just the viewed bytes', async () => {
    const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix() });
    const whole = Buffer.from('xxhello worldyy');
    const meta = await store.put({ name: 'a.txt', mimeType: 'text/plain', bytes: whole.subarray(2, 13) });
    expect((await store.get(meta.artifactId))?.bytes.toString()).toBe('hello world');
  });

  it('answers undefined for unknown and malformed ids', async () => {
    const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix() });
    expect(await store.get('AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(await store.meta('AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(await store.get('../../etc/passwd')).toBeUndefined();
  });

  it('refuses a file over the limit with artifact.too_large and its sizes', async () => {
    const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix(), maxBytes: 1000 });
    await store.put({ name: 'ok.bin', mimeType: 'application/octet-stream', bytes: new Uint8Array(1000) });
    const attempt = store.put({ name: 'big.bin', mimeType: 'application/octet-stream', bytes: new Uint8Array(1001) });
    await expect(attempt).rejects.toBeInstanceOf(SwitchboardError);
    await expect(attempt).rejects.toMatchObject({ code: 'artifact.too_large', details: { name: 'big.bin', sizeBytes: 1001, maxBytes: 1000 } });
  });

  it('puts a TTL on both keys and forgets the artifact once it passes', async () => {
    const redis = await connect();
    const store = createRedisArtifactStore({ redis, prefix: prefix(), ttlMs: 300 });
    const meta = await store.put({ name: 'soon-gone.txt', mimeType: 'text/plain', bytes: Buffer.from('bye') });
    for (const part of ['meta', 'bytes']) {
      const ttl = await redis.pttl(`${prefix()}:art:${meta.artifactId}:${part}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(300);
    }
    await waitFor(async () => (await store.get(meta.artifactId)) === undefined, 'the artifact expired', 5000);
    expect(await store.meta(meta.artifactId)).toBeUndefined();
  });

  it('uses a 30-day TTL by default', async () => {
    const redis = await connect();
    const meta = await createRedisArtifactStore({ redis, prefix: prefix() }).put({ name: 'x', mimeType: 'text/plain', bytes: Buffer.from('x') });
    const ttl = await redis.pttl(`${prefix()}:art:${meta.artifactId}:bytes`);
    expect(ttl).toBeGreaterThan(29 * 24 * 3600 * 1000);
  });

  it('refuses limits that are not positive integers', async () => {
    const redis = await connect();
    expect(() => createRedisArtifactStore({ redis, prefix: prefix(), maxBytes: 0 })).toThrow(SwitchboardError);
    expect(() => createRedisArtifactStore({ redis, prefix: prefix(), ttlMs: 1.5 })).toThrow(SwitchboardError);
  });
});

describe('sanitiseFileName', () => {
  it('keeps the last path segment without reserved, control or bidi characters', () => {
    expect(sanitiseFileName('../../etc/pass"wd')).toBe('pass_wd');
    expect(sanitiseFileName('C:\\Users\\ada\\report.pdf')).toBe('report.pdf');
    expect(sanitiseFileName('invoice\u202Efdp.exe')).toBe('invoice_fdp.exe');
    expect(sanitiseFileName('  .hidden  name.txt. ')).toBe('hidden name.txt');
    expect(sanitiseFileName('Reiseplan März.pdf')).toBe('Reiseplan März.pdf');
  });

  it('falls back to "file" and cuts long names keeping the extension', () => {
    expect(sanitiseFileName('')).toBe('file');
    expect(sanitiseFileName('../')).toBe('file');
    const long = sanitiseFileName(`${'a'.repeat(300)}.pdf`);
    expect(long).toHaveLength(200);
    expect(long.endsWith('.pdf')).toBe(true);
  });
});

describe('normaliseMimeType', () => {
  it('keeps a lower-case essence and replaces anything else with application/octet-stream', () => {
    expect(normaliseMimeType('Text/HTML; charset=utf-8')).toBe('text/html');
    expect(normaliseMimeType('image/svg+xml')).toBe('image/svg+xml');
    expect(normaliseMimeType('not a type')).toBe('application/octet-stream');
    expect(normaliseMimeType('text/plain\r\nX-Evil: 1')).toBe('application/octet-stream');
  });
});
