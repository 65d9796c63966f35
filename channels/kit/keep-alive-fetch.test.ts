import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, type ListeningServer } from '../../test/support/loopback-server.ts';
import { createKeepAliveFetch, MAX_BODY_BYTES } from './keep-alive-fetch.ts';

/** What the server saw of each request: path, method, body, content type, a tag header and the socket's number. */
const seen: { path: string; method: string; body: string; type: string | undefined; tag: string | undefined; socket: number }[] = [];
const sockets = new WeakMap<object, number>();
let server: ListeningServer;

function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  const path = request.url ?? '';
  if (path === '/redirect') {
    response.writeHead(302, { location: '/json' }).end();
  } else if (path === '/slow') {
    setTimeout(() => response.end('late'), 2000).unref();
  } else if (path === '/huge') {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i <= MAX_BODY_BYTES / chunk.length; i += 1) response.write(chunk);
    response.end();
  } else if (path === '/empty') {
    response.writeHead(204).end();
  } else {
    response.writeHead(path === '/limited' ? 429 : 200, { 'content-type': 'application/json', 'retry-after': '3', 'set-cookie': ['a=1', 'b=2'] });
    response.end(JSON.stringify({ ok: true, echo: body }));
  }
}

beforeAll(async () => {
  let next = 0;
  const http = createServer((request, response) => {
    let socket = sockets.get(request.socket);
    if (socket === undefined) {
      next += 1;
      socket = next;
      sockets.set(request.socket, socket);
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ path: request.url ?? '', method: request.method ?? '', body, type: request.headers['content-type'], tag: request.headers['x-tag'] as string | undefined, socket: socket });
      answer(request, response, body);
    });
  });
  server = await listenOnLoopback(http);
});

afterAll(async () => {
  await server.close();
});

const apiCall = (body?: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'error', ...(body === undefined ? {} : { body }) });

describe('createKeepAliveFetch', () => {
  it('sends an API call over one kept-alive connection and answers a Response read from the bytes it got', async () => {
    const { fetch, close } = createKeepAliveFetch();
    try {
      seen.length = 0;
      const first = await fetch(`${server.origin}/json`, apiCall('channel=C1&text=hi'));
      const second = await fetch(new URL(`${server.origin}/limited`), apiCall('channel=C1'));
      expect(first.status).toBe(200);
      expect(first.url).toBe(`${server.origin}/json`);
      expect(first.headers.get('retry-after')).toBe('3');
      expect(first.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(first.ok).toBe(true);
      expect(await first.json()).toEqual({ ok: true, echo: 'channel=C1&text=hi' });
      expect(first.bodyUsed).toBe(true);
      expect(second.status).toBe(429);
      expect(second.ok).toBe(false);
      expect(seen.map((request) => [request.method, request.type, request.body])).toEqual([
        ['POST', 'application/x-www-form-urlencoded', 'channel=C1&text=hi'],
        ['POST', 'application/x-www-form-urlencoded', 'channel=C1'],
      ]);
      expect(seen[1]?.socket).toBe(seen[0]?.socket);
      const empty = await fetch(`${server.origin}/empty`, { redirect: 'error' });
      expect(empty.status).toBe(204);
      expect(await empty.text()).toBe('');
    } finally {
      close();
    }
  });

  it('sends the headers as fetch would: names in any case, one given twice joined, from an object or a Headers', async () => {
    const { fetch, close } = createKeepAliveFetch();
    try {
      seen.length = 0;
      await fetch(`${server.origin}/json`, { method: 'POST', redirect: 'error', headers: { 'Content-Type': 'application/json', 'X-Tag': 'a', 'x-tag': 'b' }, body: '{}' });
      await fetch(`${server.origin}/json`, { method: 'POST', redirect: 'error', headers: new Headers([['content-type', 'text/plain'], ['x-tag', 'c'], ['X-Tag', 'd']]), body: 'x' });
      expect(seen.map((request) => [request.type, request.tag])).toEqual([['application/json', 'a, b'], ['text/plain', 'c, d']]);
    } finally {
      close();
    }
  });

  it('refuses a redirect, as fetch does with redirect: "error"', async () => {
    const { fetch, close } = createKeepAliveFetch();
    try {
      await expect(fetch(`${server.origin}/redirect`, apiCall())).rejects.toThrow(`${server.origin}/redirect redirected, and redirects are refused`);
    } finally {
      close();
    }
  });

  it('gives up when the signal aborts, and on an answer larger than an API call ever is', async () => {
    const { fetch, close } = createKeepAliveFetch();
    try {
      await expect(fetch(`${server.origin}/slow`, { ...apiCall(), signal: AbortSignal.timeout(100) })).rejects.toMatchObject({ name: expect.stringMatching(/AbortError|TimeoutError/) as string });
      await expect(fetch(`${server.origin}/huge`, apiCall())).rejects.toThrow(`answered more than ${String(MAX_BODY_BYTES)} bytes`);
    } finally {
      close();
    }
  });

  it('leaves every other request to the global fetch: here a redirect to follow', async () => {
    const { fetch, close } = createKeepAliveFetch();
    try {
      const followed = await fetch(`${server.origin}/redirect`);
      expect(followed.status).toBe(200);
      expect(followed.redirected).toBe(true);
      expect(await followed.json()).toEqual({ ok: true, echo: '' });
    } finally {
      close();
    }
  });
});
