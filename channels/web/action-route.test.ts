import { afterEach, describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { createTestIdentity } from '../../test/web/test-identity.ts';
import { createWebClient, type JsonAnswer, type WebClient } from '../../test/web/web-client.ts';
import { createDeliveredSurfaces } from './delivered-surfaces.ts';
import type { WebIdentity } from './identity/web-identity.ts';
import { createWebRoutes } from './inbound.ts';
import { createWebSender } from './send.ts';
import { createWebEventStore } from './stream/event-store.ts';
import { MAX_ACTION_CONTEXT_BYTES } from './web-action.ts';

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
  /** A browser with a session, owner of `conv-1`, which was shown the surface `flight-results`. */
  readonly browser: WebClient;
  readonly identity: WebIdentity;
  /** Injections stored, each id once (as the mailbox keeps them). */
  readonly enqueued: Injection[];
  readonly warnings: { facts: Readonly<Record<string, unknown>>; message: string }[];
  failEnqueue: boolean;
  /** Delivers an `a2ui-surface` part with `surfaceId` to `conversationId` through the web sender. */
  deliverSurface(conversationId: string, surfaceId: string): Promise<void>;
}

async function setup(): Promise<Setup> {
  const redis = await connect();
  const store = createWebEventStore({ redis, keyPrefix: prefix() });
  cleanups.push(() => store.close());
  const surfaces = createDeliveredSurfaces({ redis, prefix: prefix() });
  const sender = createWebSender(store, { surfaces });
  const identity = createTestIdentity(redis, prefix());
  const seen = new Set<string>();
  const state = { enqueued: [] as Injection[], warnings: [] as Setup['warnings'], failEnqueue: false };
  const routes = createWebRoutes({
    store,
    identity,
    surfaces,
    logger: { warn: (facts, message) => state.warnings.push({ facts, message }) },
    tenantId: 'tenant-1',
    clock: () => NOW,
    status: () => ({ modelConfigured: true }),
    enqueue: (injection) => {
      if (state.failEnqueue) return Promise.reject(new SwitchboardError('queue.closed', 'The queue is closed.'));
      const duplicate = seen.has(injection.id);
      seen.add(injection.id);
      if (!duplicate) state.enqueued.push(injection);
      return Promise.resolve({ duplicate });
    },
  });
  const server = await startTestServer(routes);
  cleanups.push(() => server.close());
  const browser = createWebClient(server.url);
  const session = await browser.session();
  await identity.owners.claim('conv-1', session.identity);
  const deliverSurface = async (conversationId: string, surfaceId: string): Promise<void> => {
    const part = {
      data: {
        version: 'v0.9',
        createSurface: { surfaceId, catalogId: 'https://a2ui.org/specification/v0_9/basic_catalog.json' },
        updateComponents: { surfaceId, components: [{ id: 'root', component: 'Button', child: 'label', action: { event: { name: 'book' } } }] },
      },
      metadata: { partType: 'a2ui-surface' },
    };
    const payload = { type: 'part', turnId: 'turn-1', partId: `turn-1.${surfaceId}`, turnState: 'complete', part };
    await sender.send({ channel: 'web', destination: { channel: 'web', address: conversationId }, idempotencyKey: `turn-1:${surfaceId}`, payload });
  };
  await deliverSurface('conv-1', 'flight-results');
  return Object.assign(state, { server, browser, identity, deliverSurface });
}

const press = { id: 'press-1', surfaceId: 'flight-results', sourceComponentId: 'book-ba123', name: 'book', context: { flight: 'BA123', seats: 2 } };

function postAction(target: Setup, body: unknown, conversationId = 'conv-1', as: WebClient = target.browser): Promise<JsonAnswer> {
  return as.post(`/api/chat/${conversationId}/actions`, body);
}

describe('POST /api/chat/:conversationId/actions', () => {
  it('enqueues a user-action injection with the action as its data and answers 202', async () => {
    const target = await setup();
    const answer = await postAction(target, press);
    expect(answer).toEqual({ status: 202, body: { id: 'web:conv-1:action:press-1', duplicate: false } });
    expect(target.enqueued).toEqual([
      {
        id: 'web:conv-1:action:press-1',
        kind: 'user-action',
        channel: 'web',
        tenantId: 'tenant-1',
        conversationKey: 'conv-1',
        sender: { id: `web:${target.browser.last?.identity ?? ''}`, verified: true },
        text: '[action] book',
        content: { source: 'ui-action', trusted: true },
        data: { surfaceId: 'flight-results', sourceComponentId: 'book-ba123', name: 'book', context: { flight: 'BA123', seats: 2 } },
        replyTo: { channel: 'web', address: 'conv-1' },
        receivedAt: NOW.toISOString(),
      },
    ]);
    expect(target.warnings).toEqual([]);
  });

  it('takes an absent context as {} and leaves out fields it does not know', async () => {
    const target = await setup();
    const answer = await postAction(target, { id: 'press-2', surfaceId: 'flight-results', name: 'more', timestamp: '2026-03-01T12:00:00Z' });
    expect(answer.status).toBe(202);
    expect(target.enqueued[0]?.data).toEqual({ surfaceId: 'flight-results', name: 'more', context: {} });
  });

  it('answers a retry with the same id as a duplicate, and the action is enqueued once', async () => {
    const target = await setup();
    expect((await postAction(target, press)).body).toEqual({ id: 'web:conv-1:action:press-1', duplicate: false });
    expect((await postAction(target, press)).body).toEqual({ id: 'web:conv-1:action:press-1', duplicate: true });
    expect(target.enqueued).toHaveLength(1);
  });

  it('answers 503 with Retry-After when the enqueue fails', async () => {
    const target = await setup();
    target.failEnqueue = true;
    const answer = await postAction(target, press);
    expect(answer.status).toBe(503);
    expect(answer.body['error']).toMatchObject({ code: 'queue.closed', details: { retryable: true } });
  });

  it.each([
    ['no id', { ...press, id: undefined }, 'id'],
    ['an id outside its alphabet', { ...press, id: 'a:b' }, 'id'],
    ['no surfaceId', { ...press, surfaceId: undefined }, 'surfaceId'],
    ['a surfaceId that is no string', { ...press, surfaceId: 7 }, 'surfaceId'],
    ['an empty sourceComponentId', { ...press, sourceComponentId: '' }, 'sourceComponentId'],
    ['no name', { ...press, name: undefined }, 'name'],
    ['a blank name', { ...press, name: '   ' }, 'name'],
    ['a name over 100 characters', { ...press, name: 'n'.repeat(101) }, 'name'],
    ["the approval card's event", { ...press, name: 'approval.decide', context: { approvalId: 'apr_1', decision: 'granted' } }, 'name'],
    ['a context that is an array', { ...press, context: ['BA123'] }, 'context'],
    ['a null context', { ...press, context: null }, 'context'],
    ['a context over the limit', { ...press, context: { blob: 'x'.repeat(MAX_ACTION_CONTEXT_BYTES) } }, 'context'],
    ['a context nested too deep', { ...press, context: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) as unknown }, 'context'],
  ])('answers 400 naming the field to %s, and enqueues nothing', async (_label, body, field) => {
    const target = await setup();
    const answer = await postAction(target, body);
    expect(answer.status).toBe(400);
    expect(answer.body['error']).toMatchObject({ code: 'http.bad_request', details: { field } });
    expect(((answer.body['error'] as { message: string }).message)).toContain(`"${field}"`);
    expect(target.enqueued).toEqual([]);
  });

  it('answers 400 to a body that is not a JSON object and to a bad conversation id', async () => {
    const target = await setup();
    expect((await postAction(target, '["book"]')).status).toBe(400);
    expect((await postAction(target, '{"id": ')).status).toBe(400);
    const badConversation = await postAction(target, press, 'conv.1');
    expect(badConversation.body['error']).toMatchObject({ code: 'http.bad_request', details: { field: 'conversationId' } });
    expect(target.enqueued).toEqual([]);
  });
});

describe('POST /api/chat/:conversationId/actions: who may press', () => {
  it('answers 401 without a session', async () => {
    const target = await setup();
    const bare = await fetch(`${target.server.url}/api/chat/conv-1/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(press) });
    expect(bare.status).toBe(401);
    expect(target.enqueued).toEqual([]);
  });

  it.each([
    ['no CSRF token', { csrf: false as const }],
    ['a wrong CSRF token', { csrf: 'A'.repeat(43) }],
    ['a cross-site Origin', { origin: 'https://evil.example' }],
  ])('answers 403 to %s and enqueues nothing', async (_label, options) => {
    const target = await setup();
    const answer = await target.browser.post('/api/chat/conv-1/actions', press, options);
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden' });
    expect(target.enqueued).toEqual([]);
  });

  it("answers 403 to a press in another browser's conversation, and logs it", async () => {
    const target = await setup();
    const other = createWebClient(target.server.url);
    const answer = await postAction(target, press, 'conv-1', other);
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'not_owner', conversationId: 'conv-1' } });
    expect(target.enqueued).toEqual([]);
    expect(target.warnings).toEqual([
      {
        message: "web action refused: the conversation is not the sender's",
        facts: { conversationId: 'conv-1', surfaceId: 'flight-results', name: 'book', actionId: 'press-1', sender: `web:${other.last?.identity ?? ''}` },
      },
    ]);
  });

  it('answers 403 to a press in a conversation nobody owns, and does not claim it', async () => {
    const target = await setup();
    await target.deliverSurface('conv-free', 'flight-results');
    expect((await postAction(target, press, 'conv-free')).status).toBe(403);
    expect(await target.identity.owners.owns('conv-free', target.browser.last?.identity ?? '')).toBe(false);
    expect(target.enqueued).toEqual([]);
  });

  it('answers 403 to a surface never delivered to the conversation, even one delivered to another of its conversations', async () => {
    const target = await setup();
    await target.identity.owners.claim('conv-2', target.browser.last?.identity ?? '');
    await target.deliverSurface('conv-2', 'hotel-results');
    const answer = await postAction(target, { ...press, surfaceId: 'hotel-results' });
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'unknown_surface', conversationId: 'conv-1', surfaceId: 'hotel-results' } });
    expect(target.warnings.map((warning) => warning.message)).toEqual(['web action refused: the surface was not delivered to this conversation']);
    expect(target.enqueued).toEqual([]);
    expect((await postAction(target, { ...press, surfaceId: 'hotel-results' }, 'conv-2')).status).toBe(202);
  });
});
