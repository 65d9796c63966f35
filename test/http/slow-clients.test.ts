/**
 * Slow clients against the real HTTP server (`createHttpServer`, loopback, raw sockets): headers
 * trickled in (slowloris), a body trickled in, an idle kept-alive connection are all cut after a
 * bounded time with a coded 408 where an answer can still be sent; the web chat's event stream,
 * a long answer by design, outlives every one of those bounds.
 *
 * The bounds are made small through the server's options; assertions only say "closed, and within
 * a generous upper bound", never how soon.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebRoutes } from '../../channels/web/inbound.ts';
import { createWebEventStore, type WebEventStore } from '../../channels/web/stream/event-store.ts';
import { createHttpServer } from '../../src/runtime/http/http-server.ts';
import { readBody } from '../../src/runtime/http/request-body.ts';
import { createRouter, sendJson, type Route } from '../../src/runtime/http/router.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { uniquePrefix, useRedis } from '../support/redis.ts';
import { openSse } from '../web/sse-client.ts';
import { createTestIdentity } from '../web/test-identity.ts';
import { createWebClient } from '../web/web-client.ts';
import { openRaw, rawJsonBody, within } from './raw-socket.ts';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
const KEEP_ALIVE_TIMEOUT_MS = 200;
/** What every "cut within" assertion allows: many times the bound, for a loaded machine. */
const GENEROUS_MS = 8_000;

const redisUrl = useRedis();
const prefix = uniquePrefix('slow-clients');
let redis: Redis;
let server: ListeningServer;
let store: WebEventStore;

/** A route that reads its body with a 250 ms bound of its own (the server's is longer for it). */
const slowBodyRoute: Route = {
  method: 'POST',
  pattern: '/upload',
  async handler({ req, res }) {
    const body = await readBody(req, 1024, { timeoutMs: 250 });
    sendJson(res, 200, { bytes: body.length });
  },
};

/** A route that reads its body with the default bound (20 s): only the server's request bound cuts it. */
const patientBodyRoute: Route = {
  method: 'POST',
  pattern: '/patient',
  async handler({ req, res }) {
    sendJson(res, 200, { bytes: (await readBody(req)).length });
  },
};

beforeAll(async () => {
  redis = new Redis(redisUrl());
  store = createWebEventStore({ redis, keyPrefix: prefix });
  const routes = createWebRoutes({
    store,
    identity: createTestIdentity(redis, prefix),
    tenantId: 't',
    heartbeatMs: 60_000,
    status: () => ({ modelConfigured: true }),
    enqueue: () => Promise.resolve({ duplicate: false }),
  });
  const limits = { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS, checkIntervalMs: 50 };
  server = await listenOnLoopback(createHttpServer(createRouter([...routes, slowBodyRoute, patientBodyRoute]), limits));
});

afterAll(async () => {
  await server.close();
  await store.close();
  await redis.quit();
});

/** Asserts that `answer` is a raw `status` answer saying the connection closes, whose JSON error matches `error`. */
function expectClosingRefusal(answer: string, status: number, error: Record<string, unknown>): void {
  expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${String(status)} `));
  expect(answer.toLowerCase()).toContain('connection: close');
  expect(rawJsonBody(answer)).toMatchObject({ error });
}

describe('slow clients', () => {
  it('cuts a client trickling its headers (slowloris) with a coded 408', async () => {
    const raw = await openRaw(server.port);
    await raw.write('GET /api/chat/config HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    raw.trickle('X-Slow: 1\r\n', 50);
    const answer = await within(raw.closed, GENEROUS_MS, 'closing the slowloris connection');
    expectClosingRefusal(answer, 408, { code: 'http.request_timeout' });
  });

  it('cuts a connection that never sends a request', async () => {
    const raw = await openRaw(server.port);
    await within(raw.closed, GENEROUS_MS, 'closing the silent connection');
  });

  it('cuts a body trickled slower than the body reader allows, with a coded 408, and closes the connection', async () => {
    const raw = await openRaw(server.port);
    await raw.write('POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n');
    raw.trickle('x', 50);
    const answer = await within(raw.closed, GENEROUS_MS, 'closing the slow upload');
    expectClosingRefusal(answer, 408, { code: 'http.request_timeout', details: { timeoutMs: 250 } });
  });

  it('cuts a body trickled past the whole-request bound even when the route would wait longer', async () => {
    const raw = await openRaw(server.port);
    await raw.write('POST /patient HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n');
    raw.trickle('x', 50);
    const answer = await within(raw.closed, GENEROUS_MS, 'closing the slow request');
    expectClosingRefusal(answer, 408, { code: 'http.request_timeout' });
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    const raw = await openRaw(server.port);
    await raw.write('GET /api/chat/config HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const answer = await within(raw.closed, GENEROUS_MS, 'closing the idle kept-alive connection');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"modelConfigured":true');
  });

  it('answers a prompt client normally on the same server', async () => {
    const response = await fetch(`${server.origin}/upload`, { method: 'POST', body: 'abc' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ bytes: 3 });
  });
});

describe('unreadable requests', () => {
  it('answers bytes that are not HTTP/1.1 with a coded 400 and closes the connection', async () => {
    const raw = await openRaw(server.port);
    await raw.write('NOT HTTP AT ALL\r\n\r\n');
    const answer = await within(raw.closed, GENEROUS_MS, 'closing the unparsable connection');
    expectClosingRefusal(answer, 400, { code: 'http.bad_request' });
  });

  it('answers headers over the size limit with a coded 431 and closes the connection', async () => {
    const raw = await openRaw(server.port);
    await raw.write(`GET /api/chat/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(20 * 1024)}\r\n\r\n`);
    const answer = await within(raw.closed, GENEROUS_MS, 'closing the oversized request');
    expectClosingRefusal(answer, 431, { code: 'http.bad_request' });
  });
});

describe('the event stream', () => {
  it('stays open, silent, well past the request and keep-alive bounds, and still delivers', async () => {
    const browser = createWebClient(server.origin);
    await browser.session();
    const stream = await openSse(`${server.origin}/api/chat/long-lived/events`, { cookie: browser.cookie ?? '' });
    try {
      expect(stream.response.status).toBe(200);
      // No heartbeat is due (60 s): the connection carries nothing for several request bounds.
      await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS * 4));
      await store.append('long-lived', { type: 'message', messageId: 'm-1', text: 'still here', sender: 'web:someone' }, 'm-1');
      const events = await stream.waitForEvents(1, GENEROUS_MS);
      expect(JSON.parse(events[0]?.data ?? '{}')).toMatchObject({ text: 'still here' });
    } finally {
      stream.close();
    }
  });
});
