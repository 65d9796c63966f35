import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../protocol/errors.ts';
import { openRaw } from '../../../test/http/raw-socket.ts';
import { createRouter, readJsonObject, sendJson } from './router.ts';

let server: Server;
let base = '';
const errors: string[] = [];

beforeAll(async () => {
  server = createServer(
    createRouter(
      [
        { method: 'GET', pattern: '/items/:id', handler: ({ res, params }) => { sendJson(res, 200, { id: params['id'] }); return Promise.resolve(); } },
        { method: 'POST', pattern: '/items', handler: async ({ req, res }) => { sendJson(res, 201, await readJsonObject(req, 64)); } },
        { method: 'GET', pattern: '/boom', handler: () => Promise.reject(new Error('kaboom')) },
        { method: 'GET', pattern: '/missing', handler: () => Promise.reject(new SwitchboardError('http.not_found', 'gone')) },
        { method: 'GET', pattern: '/redis-away', handler: () => Promise.reject(new Error("Stream isn't writeable and enableOfflineQueue options is false")) },
      ],
      (error) => errors.push(error.code),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
});

describe('the HTTP router', () => {
  it('answers a handler failure that says Redis is away with 503 redis.unavailable and Retry-After', async () => {
    const response = await fetch(`${base}/redis-away`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toMatchObject({ error: { code: 'redis.unavailable', details: { retryAfterSeconds: 2 } } });
  });

  it('routes by method and pattern, decoding path parameters', async () => {
    const response = await fetch(`${base}/items/a%20b`);
    expect(await response.json()).toEqual({ id: 'a b' });
  });

  it('answers 400 to a path segment that is not percent-encoding and to a target that is no URL, and keeps serving', async () => {
    const bad = await fetch(`${base}/items/%zz`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'http.bad_request' } });
    // A request target fetch would never send: written on a raw socket.
    const connection = await openRaw(Number(new URL(base).port));
    await connection.write('GET http://[::1/items/1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    const raw = await connection.closed;
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('http.bad_request');
    expect((await fetch(`${base}/items/ok`)).status).toBe(200);
  });

  it('answers 404 for an unknown path and 405 for a known path with another method', async () => {
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
    expect((await fetch(`${base}/items/1`, { method: 'DELETE' })).status).toBe(405);
  });

  it('refuses malformed JSON, non-object JSON and oversized bodies with 400', async () => {
    const post = (body: string): Promise<Response> => fetch(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('{"a":1}')).status).toBe(201);
    expect((await post('{not json')).status).toBe(400);
    expect((await post('[1,2]')).status).toBe(400);
    expect((await post(JSON.stringify({ big: 'x'.repeat(100) }))).status).toBe(400);
  });

  it('takes JSON bodies only as application/json (charset utf-8 allowed), else 415 with a code', async () => {
    const post = (contentType: string | undefined): Promise<Response> =>
      fetch(`${base}/items`, { method: 'POST', headers: contentType === undefined ? {} : { 'content-type': contentType }, body: new TextEncoder().encode('{"a":1}') });
    expect((await post('application/json; charset=UTF-8')).status).toBe(201);
    for (const refused of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', undefined]) {
      const answer = await post(refused);
      expect(answer.status, String(refused)).toBe(415);
      expect(await answer.json()).toMatchObject({ error: { code: 'http.unsupported_media_type', details: { field: 'content-type' } } });
    }
  });

  it('marks every answer nosniff', async () => {
    for (const path of ['/items/1', '/nothing', '/boom']) expect((await fetch(`${base}${path}`)).headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('turns a handler failure into a coded JSON error and reports it', async () => {
    const boom = await fetch(`${base}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: { code: 'internal', message: 'kaboom', details: {} } });
    expect((await fetch(`${base}/missing`)).status).toBe(404);
    expect(errors).toContain('internal');
    expect(errors).toContain('http.not_found');
  });
});
