import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { createTestIdentity } from '../../test/web/test-identity.ts';
import type { WebEventStore } from './stream/event-store.ts';
import { createWebRoutes, type WebChatStatus } from './inbound.ts';

/** The page and config routes never touch the store. */
const unusedStore: WebEventStore = {
  append: () => Promise.reject(new Error('unused')),
  readAfter: () => Promise.reject(new Error('unused')),
  subscribe: () => Promise.reject(new Error('unused')),
  close: () => Promise.resolve(),
};

let status: WebChatStatus = { modelConfigured: true };
let server: TestServer;
/** Never connected: these routes need no session. */
const idleRedis = new Redis({ lazyConnect: true });

beforeAll(async () => {
  server = await startTestServer(
    createWebRoutes({
      store: unusedStore,
      identity: createTestIdentity(idleRedis, 'unused'),
      tenantId: 't',
      status: () => status,
      enqueue: () => Promise.reject(new Error('unused')),
    }),
  );
});

afterAll(async () => {
  await server.close();
  idleRedis.disconnect();
});

describe('the page routes', () => {
  it('serves the page at / with a content security policy', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toContain('/static/chat.js');
    expect(html).toContain('/static/chat.css');
  });

  it.each([
    ['chat.js', 'text/javascript; charset=utf-8'],
    ['chat.css', 'text/css; charset=utf-8'],
    ['favicon.svg', 'image/svg+xml'],
  ])('serves /static/%s as %s', async (file, contentType) => {
    const response = await fetch(`${server.url}/static/${file}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect((await response.text()).length).toBeGreaterThan(100);
  });

  it.each([
    '%2e%2e%2fweb-routes.ts',
    '..%2Fweb-routes.ts',
    '%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json',
    'web-routes.ts',
    'missing.js',
    '.hidden.js',
    'CHAT.JS',
  ])('answers 404 to /static/%s', async (file) => {
    const response = await fetch(`${server.url}/static/${file}`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('http.not_found');
  });
});

describe('GET /api/chat/config', () => {
  it('says whether the model is configured and what is missing', async () => {
    status = { modelConfigured: true };
    expect(await (await fetch(`${server.url}/api/chat/config`)).json()).toEqual({ modelConfigured: true, missing: [] });
    status = { modelConfigured: false, missing: ['ANTHROPIC_API_KEY'] };
    expect(await (await fetch(`${server.url}/api/chat/config`)).json()).toEqual({ modelConfigured: false, missing: ['ANTHROPIC_API_KEY'] });
  });
});
