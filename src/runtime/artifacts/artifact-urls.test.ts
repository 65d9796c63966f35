import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../protocol/errors.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { startTestServer, type TestServer } from '../../../test/web/http-test-server.ts';
import { attachmentDisposition, checkArtifactLink, createArtifactRoutes, signArtifactUrl } from './artifact-urls.ts';
import type { ArtifactMeta } from './artifact-store.ts';
import { createRedisArtifactStore } from './redis-artifact-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const SECRET = 'artifact-link-secret';
const T0 = new Date('2030-01-01T10:00:00.000Z');

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

interface Setup {
  readonly server: TestServer;
  readonly meta: ArtifactMeta;
  readonly bytes: Buffer;
  /** The clock the route checks links at; tests move it. */
  readonly clock: { now: Date };
  readonly link: (options?: { readonly artifactId?: string; readonly now?: Date }) => string;
}

async function setup(name = 'Ticket SB7K2M9Q.pdf', mimeType = 'application/pdf'): Promise<Setup> {
  const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix() });
  const bytes = Buffer.from('%PDF-1.7 the ticket\u0000\u00ff');
  const meta = await store.put({ name, mimeType, bytes });
  const clock = { now: T0 };
  const server = await startTestServer(createArtifactRoutes({ store, secret: SECRET, clock: () => clock.now }));
  servers.push(server);
  const link = (options: { readonly artifactId?: string; readonly now?: Date } = {}): string =>
    signArtifactUrl({ publicUrl: `${server.url}/`, artifactId: options.artifactId ?? meta.artifactId, secret: SECRET, now: options.now ?? T0 });
  return { server, meta, bytes, clock, link };
}

describe('signArtifactUrl', () => {
  it('makes a link under the public URL that expires after 15 minutes by default', () => {
    const url = new URL(signArtifactUrl({ publicUrl: 'https://bot.example.com/', artifactId: 'AAAAAAAAAAAAAAAAAAAAAA', secret: SECRET, now: T0 }));
    expect(url.origin + url.pathname).toBe('https://bot.example.com/artifacts/AAAAAAAAAAAAAAAAAAAAAA');
    expect(url.searchParams.get('expires')).toBe(String(T0.getTime() / 1000 + 15 * 60));
    expect(url.searchParams.get('sig')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is valid until it expires, and only for its own id', () => {
    const url = new URL(signArtifactUrl({ publicUrl: 'https://x', artifactId: 'a1', secret: SECRET, ttlMs: 60_000, now: T0 }));
    expect(checkArtifactLink('a1', url.searchParams, SECRET, new Date(T0.getTime() + 59_000))).toBe('ok');
    expect(checkArtifactLink('a1', url.searchParams, SECRET, new Date(T0.getTime() + 60_000))).toBe('expired');
    expect(checkArtifactLink('a2', url.searchParams, SECRET, T0)).toBe('invalid');
    expect(checkArtifactLink('a1', url.searchParams, 'another secret', T0)).toBe('invalid');
    const later = new URLSearchParams(url.searchParams);
    later.set('expires', String(Number(later.get('expires')) + 3600));
    expect(checkArtifactLink('a1', later, SECRET, T0)).toBe('invalid');
  });

  it('refuses an empty secret', () => {
    expect(() => signArtifactUrl({ publicUrl: 'https://x', artifactId: 'a', secret: '', now: T0 })).toThrow(SwitchboardError);
    expect(() => createArtifactRoutes({ store: { get: () => Promise.resolve(undefined) }, secret: '' })).toThrow(SwitchboardError);
  });
});

describe('GET /artifacts/:artifactId', () => {
  it('serves the bytes as a download with safe headers', async () => {
    const { link, meta, bytes } = await setup();
    const response = await fetch(link());
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-length')).toBe(String(meta.sizeBytes));
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Ticket SB7K2M9Q.pdf"; filename*=UTF-8''Ticket%20SB7K2M9Q.pdf`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  });

  it('names a non-ASCII file exactly in filename* and serves HTML only as a sandboxed download', async () => {
    const { link } = await setup('Reiseplan März (v2).html', 'text/html');
    const response = await fetch(link());
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Reiseplan M_rz (v2).html"; filename*=UTF-8''Reiseplan%20M%C3%A4rz%20%28v2%29.html`);
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    await response.arrayBuffer();
  });

  it('answers 403 for an expired link, a tampered signature, a link of another id or none at all', async () => {
    const { link, server, meta, clock } = await setup();
    const good = link();
    clock.now = new Date(T0.getTime() + 15 * 60 * 1000);
    expect((await fetch(good)).status).toBe(403);
    clock.now = T0;
    expect((await fetch(good.replace(/sig=./, (match) => (match.endsWith('A') ? 'sig=B' : 'sig=A')))).status).toBe(403);
    expect((await fetch(link({ artifactId: 'BBBBBBBBBBBBBBBBBBBBBB' }).replace('BBBBBBBBBBBBBBBBBBBBBB', meta.artifactId))).status).toBe(403);
    const bare = await fetch(`${server.url}/artifacts/${meta.artifactId}`);
    expect(bare.status).toBe(403);
    expect(await bare.json()).toMatchObject({ error: { code: 'http.forbidden' } });
  });

  it('answers 404 for a validly signed link to an unknown artifact', async () => {
    const { link } = await setup();
    const response = await fetch(link({ artifactId: 'CCCCCCCCCCCCCCCCCCCCCC' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'http.not_found' } });
  });
});

describe('attachmentDisposition', () => {
  it('escapes quotes in the fallback and encodes RFC 8187 specials', () => {
    expect(attachmentDisposition(`a"b\\c'*.txt`)).toBe(`attachment; filename="a_b_c'*.txt"; filename*=UTF-8''a%22b%5Cc%27%2A.txt`);
  });
});
