/**
 * The caps on open event streams, against the real server and the web chat's real routes: per
 * browser identity and per process, a stream over either is refused with 429
 * `http.too_many_streams` and `Retry-After` (`HEAD` says the same), and a closed stream gives its
 * slot back.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebRoutes } from '../../channels/web/inbound.ts';
import { createWebEventStore, type WebEventStore } from '../../channels/web/stream/event-store.ts';
import type { StreamSlotLimits } from '../../channels/web/stream/stream-slots.ts';
import { createHttpServer } from '../../src/runtime/http/http-server.ts';
import { createRouter } from '../../src/runtime/http/router.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { uniquePrefix, useRedis } from '../support/redis.ts';
import { openSse, type SseClient } from '../web/sse-client.ts';
import { createTestIdentity } from '../web/test-identity.ts';
import { createWebClient, type WebClient } from '../web/web-client.ts';

const redisUrl = useRedis();
let redis: Redis;
let store: WebEventStore;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(() => {
  redis = new Redis(redisUrl());
  store = createWebEventStore({ redis, keyPrefix: uniquePrefix('stream-caps') });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await store.close();
  await redis.quit();
});

async function serve(streamLimits: StreamSlotLimits): Promise<ListeningServer> {
  const routes = createWebRoutes({
    store,
    identity: createTestIdentity(redis, uniquePrefix('stream-caps-identity')),
    tenantId: 't',
    heartbeatMs: 60_000,
    status: () => ({ modelConfigured: true }),
    enqueue: () => Promise.resolve({ duplicate: false }),
    streamLimits,
  });
  const server = await listenOnLoopback(createHttpServer(createRouter(routes)));
  cleanups.push(() => server.close());
  return server;
}

async function browserOn(server: ListeningServer): Promise<WebClient> {
  const browser = createWebClient(server.origin);
  await browser.session();
  return browser;
}

async function open(browser: WebClient, conversationId: string): Promise<SseClient> {
  const stream = await openSse(`${browser.baseUrl}/api/chat/${conversationId}/events`, { cookie: browser.cookie ?? '' });
  cleanups.push(() => {
    stream.close();
  });
  return stream;
}

/** Opens streams until one is accepted, for at most `ms` (the server learns of a close asynchronously). */
async function openOnceFree(browser: WebClient, conversationId: string, ms = 5_000): Promise<SseClient> {
  const deadline = Date.now() + ms;
  for (;;) {
    const stream = await open(browser, conversationId);
    if (stream.response.status === 200 || Date.now() > deadline) return stream;
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('open event streams', () => {
  it('caps the streams of one browser identity, with a coded 429 and Retry-After, and HEAD says so', async () => {
    const server = await serve({ maxPerIdentity: 2, maxTotal: 100, retryAfterSeconds: 7 });
    const browser = await browserOn(server);
    expect((await open(browser, 'tab-a')).response.status).toBe(200);
    expect((await open(browser, 'tab-b')).response.status).toBe(200);

    const refused = await browser.get('/api/chat/tab-a/events');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await refused.json()).toEqual({
      error: { code: 'http.too_many_streams', message: expect.stringContaining('2 event streams') as unknown, details: { scope: 'identity', limit: 2, retryAfterSeconds: 7 } },
    });
    const head = await browser.get('/api/chat/tab-a/events', { method: 'HEAD' });
    expect([head.status, head.headers.get('retry-after')]).toEqual([429, '7']);

    const other = await browserOn(server);
    expect((await open(other, 'elsewhere')).response.status).toBe(200);
  });

  it('caps the streams of the whole process', async () => {
    const server = await serve({ maxPerIdentity: 5, maxTotal: 2 });
    const first = await browserOn(server);
    const second = await browserOn(server);
    expect((await open(first, 'one')).response.status).toBe(200);
    expect((await open(second, 'two')).response.status).toBe(200);
    const third = await browserOn(server);
    const refused = await third.get('/api/chat/three/events');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(await refused.json()).toMatchObject({ error: { code: 'http.too_many_streams', details: { scope: 'process', limit: 2 } } });
  });

  it('gives the slot back when a stream closes', async () => {
    const server = await serve({ maxPerIdentity: 1, maxTotal: 100 });
    const browser = await browserOn(server);
    const tab = await open(browser, 'conv');
    expect(tab.response.status).toBe(200);
    expect((await open(browser, 'conv')).response.status).toBe(429);
    tab.close();
    const reopened = await openOnceFree(browser, 'conv');
    expect(reopened.response.status).toBe(200);
    // Many opened and closed in turn never leak a slot.
    reopened.close();
    for (let round = 0; round < 5; round += 1) {
      const next = await openOnceFree(browser, 'conv');
      expect(next.response.status).toBe(200);
      next.close();
    }
  });

  it('does not count a refused stream, nor HEAD', async () => {
    const server = await serve({ maxPerIdentity: 1, maxTotal: 100 });
    const browser = await browserOn(server);
    for (let round = 0; round < 3; round += 1) expect((await browser.get('/api/chat/conv/events', { method: 'HEAD' })).status).toBe(200);
    const tab = await open(browser, 'conv');
    expect(tab.response.status).toBe(200);
    for (let round = 0; round < 3; round += 1) expect((await open(browser, 'conv')).response.status).toBe(429);
    tab.close();
    expect((await openOnceFree(browser, 'conv')).response.status).toBe(200);
  });
});
