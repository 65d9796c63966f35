import { createEchoOrder, type EchoOrder } from './echo-order.ts';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createTestIdentity } from '../../test/web/test-identity.ts';
import { createWebClient, type WebClient } from '../../test/web/web-client.ts';
import { createWebEventStore, type WebEventStore } from './stream/event-store.ts';
import { createWebRoutes } from './inbound.ts';
import { createSessionStore } from '../../src/runtime/session/session-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const NOW = new Date('2026-03-01T12:00:00.000Z');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly server: TestServer;
  /** A browser with a session. */
  readonly browser: WebClient;
  readonly store: WebEventStore;
  readonly enqueued: Injection[];
  /** The echoes the route owes; whether one was owed to its conversation at each enqueue. */
  readonly echoes: EchoOrder;
  readonly owedAtEnqueue: boolean[];
  /** The identity's own Redis client (to count its reads). */
  readonly identityRedis: Redis;
  failEnqueue: boolean;
}

async function setup(): Promise<Setup> {
  const redis = await connect();
  const store = createWebEventStore({ redis, keyPrefix: prefix() });
  const mailboxes = createSessionStore({ redis, prefix: prefix() });
  cleanups.push(() => store.close());
  const seen = new Set<string>();
  const echoes = createEchoOrder();
  const state = { enqueued: [] as Injection[], echoes, owedAtEnqueue: [] as boolean[], failEnqueue: false };
  const identityRedis = await connect();
  const routes = createWebRoutes({
    echoes,
    store,
    identity: createTestIdentity(identityRedis, prefix(), { people: [{ id: 'ada', name: 'Ada Lovelace' }] }),
    tenantId: 'tenant-1',
    clock: () => NOW,
    status: () => ({ modelConfigured: true }),
    enqueue: async (injection, condition) => {
      state.owedAtEnqueue.push(echoes.sent(injection.conversationKey) !== undefined);
      if (state.failEnqueue) throw new SwitchboardError('queue.closed', 'The queue is closed.');
      // As the service's accept does, in its script: nothing is stored once the session is gone.
      if (condition !== undefined && !(await mailboxes.renew(condition))) return { duplicate: false, lapsed: true as const };
      state.enqueued.push(injection);
      const duplicate = seen.has(injection.id);
      seen.add(injection.id);
      return { duplicate };
    },
  });
  const server = await startTestServer(routes);
  cleanups.push(() => server.close());
  const browser = createWebClient(server.url);
  await browser.session();
  return Object.assign(state, { server, store, browser, identityRedis });
}

/** The answer of a POST as a `Response`-like pair. */
interface Posted {
  readonly status: number;
  readonly headers: Headers;
  json(): Promise<unknown>;
}

/** POSTs `body` as the setup's browser does (cookie and CSRF token). */
async function post(target: Setup, conversationId: string, body: string): Promise<Posted> {
  const { browser } = target;
  const response = await fetch(`${target.server.url}/api/chat/${conversationId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: browser.cookie ?? '', 'x-csrf-token': browser.last?.csrfToken ?? '' },
    body,
  });
  return { status: response.status, headers: response.headers, json: () => response.json() };
}

describe('POST /api/chat/:conversationId/messages', () => {
  it('enqueues an injection, echoes the message and answers 202', async () => {
    const setupResult = await setup();
    const { store, enqueued, browser } = setupResult;
    const response = await post(setupResult, 'conv-1', JSON.stringify({ text: '  Find me a flight to Lisbon  ', id: 'client-1' }));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ id: 'web:conv-1:client-1', duplicate: false });
    expect(enqueued).toEqual([
      {
        id: 'web:conv-1:client-1',
        kind: 'message',
        channel: 'web',
        tenantId: 'tenant-1',
        conversationKey: 'conv-1',
        sender: { id: `web:${browser.last?.identity ?? ''}`, verified: true },
        text: 'Find me a flight to Lisbon',
        content: { source: 'typed', trusted: true },
        replyTo: { channel: 'web', address: 'conv-1' },
        receivedAt: NOW.toISOString(),
      },
    ]);
    const stored = await store.readAfter('conv-1', '0', 10);
    expect(stored.map((entry) => entry.event)).toEqual([
      { type: 'message', messageId: 'web:conv-1:client-1', text: 'Find me a flight to Lisbon', sender: `web:${browser.last?.identity ?? ''}` },
    ]);
    // Owed while the message was enqueued (its turn may deliver then), paid once it was sent.
    expect(setupResult.owedAtEnqueue).toEqual([true]);
    expect(setupResult.echoes.sent('conv-1')).toBeUndefined();
  });

  it('makes up a message id when the client gives none', async () => {
    const setupResult = await setup();
    const { enqueued } = setupResult;
    const response = await post(setupResult, 'conv-1', JSON.stringify({ text: 'hello' }));
    expect(response.status).toBe(202);
    const body = (await response.json()) as { id: string };
    expect(body.id).toMatch(/^web:conv-1:[0-9a-f-]{36}$/);
    expect(enqueued[0]?.id).toBe(body.id);
  });

  it('answers a retry with the same client id as a duplicate and echoes once', async () => {
    const setupResult = await setup();
    const { store } = setupResult;
    const body = JSON.stringify({ text: 'hello', id: 'retry-me' });
    expect(await (await post(setupResult, 'conv-1', body)).json()).toEqual({ id: 'web:conv-1:retry-me', duplicate: false });
    expect(await (await post(setupResult, 'conv-1', body)).json()).toEqual({ id: 'web:conv-1:retry-me', duplicate: true });
    expect(await store.readAfter('conv-1', '0', 10)).toHaveLength(1);
  });

  it.each([
    ['bad JSON', 'conv-1', '{"text": "unterminated'],
    ['a body that is not an object', 'conv-1', '["hello"]'],
    ['no text', 'conv-1', '{}'],
    ['text that is not a string', 'conv-1', '{"text": 5}'],
    ['empty text', 'conv-1', '{"text": "   \\n  "}'],
    ['text over 8000 characters', 'conv-1', JSON.stringify({ text: 'x'.repeat(8001) })],
    ['a bad client id', 'conv-1', JSON.stringify({ text: 'hi', id: 'has:colon' })],
    ['a conversation id with a dot', 'conv.1', '{"text": "hi"}'],
    ['a conversation id with an encoded colon', 'a%3Ab', '{"text": "hi"}'],
    ['a conversation id over 64 characters', 'c'.repeat(65), '{"text": "hi"}'],
  ])('answers 400 to %s and accepts nothing', async (_label, conversationId, body) => {
    const setupResult = await setup();
    const { store, enqueued } = setupResult;
    const response = await post(setupResult, conversationId, body);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe('http.bad_request');
    expect(answer.error.message.length).toBeGreaterThan(0);
    expect(enqueued).toEqual([]);
    expect(await store.readAfter('conv-1', '0', 10)).toEqual([]);
  });

  it('accepts exactly 8000 characters', async () => {
    const setupResult = await setup();
    expect((await post(setupResult, 'conv-1', JSON.stringify({ text: 'y'.repeat(8000) }))).status).toBe(202);
  });

  it('answers 503 and stores no echo when the enqueue fails', async () => {
    const setupResult = await setup();
    setupResult.failEnqueue = true;
    const response = await post(setupResult, 'conv-1', JSON.stringify({ text: 'hello', id: 'lost' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    const answer = (await response.json()) as { error: { code: string; details: { retryable: boolean } } };
    expect(answer.error.code).toBe('queue.closed');
    expect(answer.error.details.retryable).toBe(true);
    expect(await setupResult.store.readAfter('conv-1', '0', 10)).toEqual([]);
    // The echo that will not come is not owed: the conversation's deliveries do not wait for it.
    expect(setupResult.owedAtEnqueue).toEqual([true]);
    expect(setupResult.echoes.sent('conv-1')).toBeUndefined();
  });
});

describe('POST /api/chat/:conversationId/messages: who may post', () => {
  const message = { text: 'Book it', id: 'm-1' };

  it('answers 401 without a cookie, with a forged cookie and with a revoked session', async () => {
    const target = await setup();
    const bare = await fetch(`${target.server.url}/api/chat/conv-1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('http.unauthorized');
    const [sid] = (target.browser.cookie ?? '').slice('sb_session='.length).split('.');
    const forged = createWebClient(target.server.url);
    forged.cookie = `sb_session=${sid ?? ''}.${'x'.repeat(43)}`;
    expect((await forged.post('/api/chat/conv-1/messages', message, { csrf: target.browser.last?.csrfToken ?? '' })).status).toBe(401);
    await (await connect()).del(`${prefix()}:web:sid:${sid ?? ''}`);
    expect((await target.browser.post('/api/chat/conv-1/messages', message)).status).toBe(401);
    expect(target.enqueued).toEqual([]);
  });

  it('reads a session this process knows no more, and answers 401 with nothing stored once it is revoked', async () => {
    const target = await setup();
    const redis = await connect();
    const reads = vi.spyOn(target.identityRedis, 'getex');
    const [sid] = (target.browser.cookie ?? '').slice('sb_session='.length).split('.');
    const sessionKey = `${prefix()}:web:sid:${sid ?? ''}`;
    expect((await target.browser.post('/api/chat/conv-1/messages', { text: 'one', id: 'm1' })).status).toBe(202);
    // The accept renews the session, as a read of it would.
    await redis.pexpire(sessionKey, 60_000);
    expect((await target.browser.post('/api/chat/conv-1/messages', { text: 'two', id: 'm2' })).status).toBe(202);
    expect(await redis.pttl(sessionKey)).toBeGreaterThan(60_000);
    expect(reads).not.toHaveBeenCalled();
    // Revoked elsewhere (signed in again from another process): the accept finds it gone.
    await redis.del(sessionKey);
    const refused = await target.browser.post('/api/chat/conv-1/messages', { text: 'three', id: 'm3' });
    expect(refused.status).toBe(401);
    expect(refused.body['error']).toMatchObject({ code: 'http.unauthorized' });
    expect(target.enqueued.map((injection) => injection.text)).toEqual(['one', 'two']);
    expect((await target.store.readAfter('conv-1', '0', 10)).map(({ event }) => event.type === 'message' && event.text)).toEqual(['one', 'two']);
    expect(target.echoes.sent('conv-1')).toBeUndefined();
    // Forgotten: the next POST reads the session again, and is refused by that read.
    expect((await target.browser.post('/api/chat/conv-1/messages', { text: 'four', id: 'm4' })).status).toBe(401);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['no CSRF token', { csrf: false as const }],
    ['a wrong CSRF token', { csrf: 'A'.repeat(43) }],
    ['a cross-site Origin', { origin: 'https://evil.example' }],
    ['an opaque Origin', { origin: 'null' }],
  ])('answers 403 to %s and enqueues nothing', async (_label, options) => {
    const target = await setup();
    const answer = await target.browser.post('/api/chat/conv-1/messages', message, options);
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden' });
    expect(target.enqueued).toEqual([]);
    expect(await target.store.readAfter('conv-1', '0', 10)).toEqual([]);
  });

  it("accepts PUBLIC_URL's origin and the request's own", async () => {
    const target = await setup();
    expect((await target.browser.post('/api/chat/conv-1/messages', { text: 'a' }, { origin: 'http://localhost:3000' })).status).toBe(202);
    expect((await target.browser.post('/api/chat/conv-1/messages', { text: 'b' }, { origin: target.server.url })).status).toBe(202);
  });

  it('refuses a body that is not sent as JSON with 415', async () => {
    const target = await setup();
    const answer = await target.browser.post('/api/chat/conv-1/messages', JSON.stringify(message), { contentType: 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.body['error']).toMatchObject({ code: 'http.unsupported_media_type', details: { field: 'content-type' } });
    expect(target.enqueued).toEqual([]);
  });

  it("answers 403 to a post in another browser's conversation", async () => {
    const target = await setup();
    expect((await target.browser.post('/api/chat/mine/messages', { text: 'first', id: 'a' })).status).toBe(202);
    const other = createWebClient(target.server.url);
    const answer = await other.post('/api/chat/mine/messages', { text: 'intruder', id: 'b' });
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'not_owner' } });
    expect(target.enqueued.map((injection) => injection.text)).toEqual(['first']);
    expect((await other.post('/api/chat/theirs/messages', { text: 'own one', id: 'c' })).status).toBe(202);
  });
});
