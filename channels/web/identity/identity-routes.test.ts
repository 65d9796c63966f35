import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Injection } from '../../../src/runtime/injection.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { startTestServer, type TestServer } from '../../../test/web/http-test-server.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { createTestIdentity } from '../../../test/web/test-identity.ts';
import { createWebClient } from '../../../test/web/web-client.ts';
import { createWebRoutes } from '../inbound.ts';
import { createWebEventStore } from '../stream/event-store.ts';
import { createInviteRoute } from './invite-route.ts';
import { issueSignInLink } from './sign-in-links.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const PEOPLE = [
  { id: 'ada', name: 'Ada Lovelace' },
  { id: 'grace', name: 'Grace Hopper' },
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly server: TestServer;
  readonly redis: Redis;
  readonly enqueued: Injection[];
  /** Issues a link for `personId` on this server. */
  link(personId: string, ttlMs?: number): Promise<string>;
}

async function setup(options: { publicUrl?: string; now?: () => Date; allowInvites?: boolean } = {}): Promise<Setup> {
  const redis = await connect();
  const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix() });
  cleanups.push(() => store.close());
  const enqueued: Injection[] = [];
  const identity = createTestIdentity(redis, prefix(), {
    people: PEOPLE,
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    ...(options.now === undefined ? {} : { clock: options.now }),
  });
  const routes = createWebRoutes({
    store,
    identity,
    tenantId: 't',
    status: () => ({ modelConfigured: true }),
    enqueue: (injection) => {
      enqueued.push(injection);
      return Promise.resolve({ duplicate: false });
    },
  });
  const publicUrl = options.publicUrl ?? 'http://localhost:3000';
  const invite = createInviteRoute({ links: { redis, prefix: prefix(), publicUrl }, people: PEOPLE, authorize: (_req, res) => {
    if (options.allowInvites === true) return true;
    res.writeHead(401).end();
    return false;
  } });
  const server = await startTestServer([...routes, invite]);
  cleanups.push(() => server.close());
  return {
    server,
    redis,
    enqueued,
    async link(personId, ttlMs) {
      const issued = await issueSignInLink({ redis, prefix: prefix(), publicUrl: server.url, ...(ttlMs === undefined ? {} : { ttlMs }) }, personId, 'invite by operator');
      return issued.url;
    },
  };
}

function sidOf(cookie: string | undefined): string {
  return (cookie ?? '').slice('sb_session='.length).split('.')[0] ?? '';
}

describe('GET /api/chat/session', () => {
  it('issues a server-made identity, a signed HttpOnly cookie and a session record with a long TTL', async () => {
    const { server, redis } = await setup();
    const response = await fetch(`${server.url}/api/chat/session`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^sb_session=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
    const body = (await response.json()) as { identity: string; csrfToken: string; person?: unknown };
    expect(body.identity).toMatch(/^b_[A-Za-z0-9_-]{22}$/);
    expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.person).toBeUndefined();
    const key = `${prefix()}:web:sid:${sidOf(cookie)}`;
    expect(JSON.parse((await redis.get(key)) ?? '{}')).toMatchObject({ identity: body.identity, basis: 'web session cookie' });
    expect(await redis.pttl(key)).toBeGreaterThan(29 * 24 * 3600 * 1000);
  });

  it('reuses the session of a valid cookie and replaces a forged one', async () => {
    const { server } = await setup();
    const browser = createWebClient(server.url);
    const first = await browser.session();
    const again = await browser.session();
    expect(again).toEqual(first);
    browser.cookie = `sb_session=${sidOf(browser.cookie)}.${'B'.repeat(43)}`;
    const replaced = await browser.session();
    expect(replaced.identity).not.toBe(first.identity);
    expect(replaced.csrfToken).not.toBe(first.csrfToken);
  });

  it('marks the cookie Secure when PUBLIC_URL is https', async () => {
    const { server } = await setup({ publicUrl: 'https://chat.example.com' });
    const response = await fetch(`${server.url}/api/chat/session`);
    expect(response.headers.getSetCookie()[0]).toMatch(/; Secure$/);
  });
});

describe('GET /signin/:token', () => {
  it('signs the browser in as the person by rotating its session; the old cookie stops working', async () => {
    const target = await setup();
    const browser = createWebClient(target.server.url);
    const before = await browser.session();
    const oldCookie = browser.cookie;
    const opened = await browser.open(await target.link('ada'));
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/');
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    expect(browser.cookie).not.toBe(oldCookie);
    const after = await browser.session();
    expect(after.identity).toBe(before.identity);
    expect(after.person).toEqual({ id: 'ada', name: 'Ada Lovelace' });
    expect(await target.redis.exists(`${prefix()}:web:sid:${sidOf(oldCookie)}`)).toBe(0);

    const replayed = createWebClient(target.server.url);
    replayed.cookie = oldCookie;
    expect((await replayed.post('/api/chat/conv-a/messages', { text: 'hi' }, { csrf: before.csrfToken })).status).toBe(401);
    expect((await replayed.get('/api/chat/conv-a/events', { method: 'HEAD' })).status).toBe(401);

    expect((await browser.post('/api/chat/conv-a/messages', { text: 'Book it', id: 'm1' })).status).toBe(202);
    expect(target.enqueued[0]?.sender).toEqual({ id: `web:${after.identity}`, verified: true, personId: 'ada', displayName: 'Ada Lovelace' });
    expect(target.enqueued[0]?.replyTo).toEqual({ channel: 'web', address: 'conv-a' });
  });

  it('works once: a second use is refused and changes nothing', async () => {
    const target = await setup();
    const url = await target.link('ada');
    const first = createWebClient(target.server.url);
    expect((await first.open(url)).status).toBe(303);
    const second = createWebClient(target.server.url);
    const refused = await second.open(url);
    expect(refused.status).toBe(404);
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect(await refused.text()).toContain('cannot be used');
    expect((await second.session()).person).toBeUndefined();
  });

  it('is refused after it expires, and for tokens never issued', async () => {
    let now = new Date('2030-01-01T10:00:00.000Z');
    const target = await setup({ now: () => now });
    const issued = await issueSignInLink({ redis: target.redis, prefix: prefix(), publicUrl: target.server.url, clock: () => now }, 'ada', 'invite by operator');
    now = new Date('2030-01-01T10:15:00.001Z');
    const browser = createWebClient(target.server.url);
    expect((await browser.open(issued.url)).status).toBe(404);
    expect((await browser.get('/signin/AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await browser.get('/signin/not-a-token')).status).toBe(404);
    expect((await browser.session()).person).toBeUndefined();
  });

  it('lapses in Redis after its TTL', async () => {
    const target = await setup();
    const url = await target.link('ada', 50);
    await expect.poll(async () => (await target.redis.keys(`${prefix()}:web:signin:*`)).length, { timeout: 5000 }).toBe(0);
    expect((await createWebClient(target.server.url).open(url)).status).toBe(404);
  });

  it('is not used up by HEAD (link previews)', async () => {
    const target = await setup();
    const url = await target.link('ada');
    const browser = createWebClient(target.server.url);
    expect((await browser.get(new URL(url).pathname, { method: 'HEAD' })).status).toBe(200);
    expect((await browser.open(url)).status).toBe(303);
  });

  it('refuses a link of a person no longer configured', async () => {
    const target = await setup();
    const browser = createWebClient(target.server.url);
    expect((await browser.open(await target.link('nobody'))).status).toBe(404);
  });

  it("gives a browser signed in as one person a new identity when another person's link is opened", async () => {
    const target = await setup();
    const browser = createWebClient(target.server.url);
    await browser.open(await target.link('ada'));
    const ada = await browser.session();
    await browser.open(await target.link('grace'));
    const grace = await browser.session();
    expect(grace.person?.id).toBe('grace');
    expect(grace.identity).not.toBe(ada.identity);
  });
});

describe('POST /admin/api/invites', () => {
  it('issues a working link for a configured person behind the operator check', async () => {
    const target = await setup({ allowInvites: true });
    const operator = createWebClient(target.server.url);
    const answer = await operator.post('/admin/api/invites', { personId: 'grace' }, { csrf: false });
    expect(answer.status).toBe(201);
    expect(answer.body['url']).toMatch(/^http:\/\/localhost:3000\/signin\/[A-Za-z0-9_-]{22}$/);
    const browser = createWebClient(target.server.url);
    expect((await browser.open(String(answer.body['url']))).status).toBe(303);
    expect((await browser.session()).person).toEqual({ id: 'grace', name: 'Grace Hopper' });
    expect((await operator.post('/admin/api/invites', { personId: 'nobody' }, { csrf: false })).status).toBe(404);
    expect((await operator.post('/admin/api/invites', { personId: 'ada' }, { csrf: false, origin: 'https://evil.example' })).status).toBe(403);
  });

  it('does nothing when the operator check refuses', async () => {
    const target = await setup();
    const answer = await createWebClient(target.server.url).post('/admin/api/invites', { personId: 'ada' }, { csrf: false });
    expect(answer.status).toBe(401);
    expect(await target.redis.keys(`${prefix()}:web:signin:*`)).toEqual([]);
  });
});
