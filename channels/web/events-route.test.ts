import { afterEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { openSse, type SseClient } from '../../test/web/sse-client.ts';
import { createTestIdentity } from '../../test/web/test-identity.ts';
import { createWebClient, type WebClient } from '../../test/web/web-client.ts';
import type { WebChatEvent } from './stream/chat-event.ts';
import { createWebEventStore, type WebEventStore } from './stream/event-store.ts';
import { createWebRoutes } from './inbound.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function makeStore(): Promise<WebEventStore> {
  const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix() });
  cleanups.push(() => store.close());
  return store;
}

/** The browser of the current test: its session cookie goes with every request. */
let browser: WebClient | undefined;

async function serve(store: WebEventStore, heartbeatMs = 60_000): Promise<TestServer> {
  const routes = createWebRoutes({
    store,
    identity: createTestIdentity(await connect(), prefix()),
    tenantId: 't',
    heartbeatMs,
    status: () => ({ modelConfigured: true }),
    enqueue: () => Promise.resolve({ duplicate: false }),
  });
  const server = await startTestServer(routes);
  cleanups.push(() => server.close());
  browser = createWebClient(server.url);
  await browser.session();
  return server;
}

/** The session cookie of the current test's browser. */
function cookie(): Record<string, string> {
  return browser?.cookie === undefined ? {} : { cookie: browser.cookie };
}

async function open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openSse(url, { ...cookie(), ...headers });
  cleanups.push(() => {
    client.close();
  });
  return client;
}

function part(partId: string, text = partId, turnState = 'awaiting'): WebChatEvent {
  return { type: 'part', turnId: 'turn-1', partId, turnState, part: { text, metadata: { partType: 'thinking' } } };
}

async function appendParts(store: WebEventStore, conversationId: string, partIds: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const partId of partIds) ids.push((await store.append(conversationId, part(partId), partId)).id);
  return ids;
}

function partIdsOf(client: SseClient): string[] {
  return client.events.map((event) => (JSON.parse(event.data) as { partId?: string }).partId ?? '?');
}

describe('GET /api/chat/:conversationId/events', () => {
  it('sends retry, the whole history, then live events, each with its stream id and type', async () => {
    const store = await makeStore();
    const server = await serve(store);
    const ids = await appendParts(store, 'conv', ['a', 'b']);
    const client = await open(`${server.url}/api/chat/conv/events`);
    expect(client.response.status).toBe(200);
    expect(client.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(client.response.headers.get('cache-control')).toBe('no-cache');
    expect(client.response.headers.get('x-accel-buffering')).toBe('no');
    await client.waitForEvents(2);
    expect(client.retryMs).toBe(2000);
    const live = await store.append('conv', { type: 'turn', turnId: 'turn-1', turnState: 'complete' }, 'settled');
    await client.waitForEvents(3);
    expect(client.events).toEqual([
      { id: ids[0], event: 'part', data: JSON.stringify(part('a')) },
      { id: ids[1], event: 'part', data: JSON.stringify(part('b')) },
      { id: live.id, event: 'turn', data: JSON.stringify({ type: 'turn', turnId: 'turn-1', turnState: 'complete' }) },
    ]);
  });

  it('resumes after Last-Event-ID, which wins over ?after=', async () => {
    const store = await makeStore();
    const server = await serve(store);
    const ids = await appendParts(store, 'conv', ['a', 'b', 'c']);
    const byHeader = await open(`${server.url}/api/chat/conv/events?after=${ids[0] ?? ''}`, { 'last-event-id': ids[1] ?? '' });
    const byQuery = await open(`${server.url}/api/chat/conv/events?after=${ids[0] ?? ''}`);
    await byHeader.waitForEvents(1);
    await byQuery.waitForEvents(2);
    await appendParts(store, 'conv', ['d']);
    await byHeader.waitForEvents(2);
    await byQuery.waitForEvents(3);
    expect(partIdsOf(byHeader)).toEqual(['c', 'd']);
    expect(partIdsOf(byQuery)).toEqual(['b', 'c', 'd']);
  });

  it('loses and repeats nothing appended between subscribing and reading the backlog', async () => {
    const store = await makeStore();
    let releaseBacklog = (): void => undefined;
    const backlogGate = new Promise<void>((resolve) => {
      releaseBacklog = resolve;
    });
    let reading: () => void = () => undefined;
    const readStarted = new Promise<void>((resolve) => {
      reading = resolve;
    });
    let firstRead = true;
    const slowStore: WebEventStore = {
      ...store,
      readAfter: async (conversationId, afterId, count) => {
        if (firstRead) {
          firstRead = false;
          reading();
          await backlogGate;
        }
        return store.readAfter(conversationId, afterId, count);
      },
    };
    const server = await serve(slowStore);
    await appendParts(store, 'conv', ['old-1', 'old-2']);
    const client = await open(`${server.url}/api/chat/conv/events`);
    await readStarted;
    // Subscribed, backlog not read yet: these go both to the live buffer and into the backlog.
    await appendParts(store, 'conv', ['gap-1', 'gap-2']);
    await expect.poll(() => store.readAfter('conv', '0', 10).then((stored) => stored.length)).toBe(4);
    releaseBacklog();
    await client.waitForEvents(4);
    await appendParts(store, 'conv', ['live-1']);
    await client.waitForEvents(5);
    await appendParts(store, 'conv', ['last']);
    await client.waitFor((sse) => partIdsOf(sse).includes('last'));
    expect(partIdsOf(client)).toEqual(['old-1', 'old-2', 'gap-1', 'gap-2', 'live-1', 'last']);
    const ids = client.events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  function lossy(store: WebEventStore, lostPartIds: readonly string[]): WebEventStore {
    return {
      ...store,
      subscribe: (conversationId, listener) =>
        store.subscribe(conversationId, (live) => {
          if (live.event.type === 'part' && lostPartIds.includes(live.event.partId)) return;
          listener(live);
        }),
    };
  }

  it('reads the stream when a live event shows that an announcement was lost', async () => {
    const store = await makeStore();
    const server = await serve(lossy(store, ['lost-1', 'lost-2']));
    const client = await open(`${server.url}/api/chat/conv/events`);
    await client.waitFor((sse) => sse.retryMs !== undefined);
    await appendParts(store, 'conv', ['first', 'lost-1', 'lost-2', 'after-lost']);
    await client.waitForEvents(4);
    await appendParts(store, 'conv', ['last']);
    await client.waitForEvents(5);
    expect(partIdsOf(client)).toEqual(['first', 'lost-1', 'lost-2', 'after-lost', 'last']);
  });

  it('sends heartbeats and repairs a trailing lost announcement at the next one', async () => {
    const store = await makeStore();
    const server = await serve(lossy(store, ['lost']), 50);
    const client = await open(`${server.url}/api/chat/conv/events`);
    await client.waitFor((sse) => sse.comments.includes('heartbeat'));
    await appendParts(store, 'conv', ['lost']);
    await client.waitForEvents(1);
    expect(partIdsOf(client)).toEqual(['lost']);
  });

  it('answers 400 to a bad resume point or conversation id', async () => {
    const store = await makeStore();
    const server = await serve(store);
    const badHeader = await fetch(`${server.url}/api/chat/conv/events`, { headers: { ...cookie(), 'last-event-id': 'yesterday' } });
    expect(badHeader.status).toBe(400);
    expect(((await badHeader.json()) as { error: { code: string } }).error.code).toBe('http.bad_request');
    expect((await fetch(`${server.url}/api/chat/conv/events?after=12`, { headers: cookie() })).status).toBe(400);
    expect((await fetch(`${server.url}/api/chat/bad.id/events`, { headers: cookie() })).status).toBe(400);
  });

  it('answers 503 when it cannot subscribe', async () => {
    const store = await makeStore();
    const server = await serve({ ...store, subscribe: () => Promise.reject(new Error('no redis')) });
    const response = await fetch(`${server.url}/api/chat/conv/events`, { headers: cookie() });
    expect(response.status).toBe(503);
  });

  it('unsubscribes when the client goes away', async () => {
    const redis = await connect();
    const store = await makeStore();
    const server = await serve(store);
    const channel = `${prefix()}:web-live:conv`;
    const client = await open(`${server.url}/api/chat/conv/events`);
    await client.waitFor((sse) => sse.retryMs !== undefined);
    expect(await redis.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    client.close();
    await expect.poll(() => redis.pubsub('NUMSUB', channel), { timeout: 10_000 }).toEqual([channel, 0]);
  });
});

describe('GET /api/chat/:conversationId/events: who may read', () => {
  it('answers 401 without a session cookie and with a forged one', async () => {
    const store = await makeStore();
    const server = await serve(store);
    const none = await fetch(`${server.url}/api/chat/conv/events`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('http.unauthorized');
    const sid = (browser?.cookie ?? '').slice('sb_session='.length).split('.')[0] ?? '';
    const forged = await fetch(`${server.url}/api/chat/conv/events`, { headers: { cookie: `sb_session=${sid}.${'A'.repeat(43)}` } });
    expect(forged.status).toBe(401);
  });

  it('answers 403 to another browser once a conversation is owned, for GET and HEAD', async () => {
    const store = await makeStore();
    const server = await serve(store);
    await appendParts(store, 'owned', ['secret']);
    const owner = await open(`${server.url}/api/chat/owned/events`);
    await owner.waitForEvents(1);
    const other = createWebClient(server.url);
    await other.session();
    const refused = await other.get('/api/chat/owned/events');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('http.forbidden');
    expect((await other.get('/api/chat/owned/events', { method: 'HEAD' })).status).toBe(403);
    expect((await browser?.get('/api/chat/owned/events', { method: 'HEAD' }))?.status).toBe(200);
  });
});
