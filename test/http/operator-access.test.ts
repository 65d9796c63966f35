/**
 * The operator pages (`/admin*`, `/metrics`) without `ADMIN_TOKEN`, against a real web process:
 * "loopback only" must not open them to the world behind a reverse proxy on the same host.
 * Requests really come from loopback sockets; a proxy is played by connecting from 127.0.0.5.
 */
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { send, useWebService, type RawAnswer } from './web-service.ts';

const redisUrl = useRedis();
const direct = useWebService({ redisUrl });
const proxied = useWebService({ redisUrl, env: { TRUST_PROXY: '127.0.0.5' } });

const PROXY = '127.0.0.5';
const OPERATOR_PATHS = ['/admin', '/admin/api/approvals', '/admin/api/deliveries/failed', '/metrics'];

function refusedAsNotLoopback(answer: RawAnswer): void {
  expect(answer.status).toBe(403);
  expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'http.forbidden', details: { reason: 'not_loopback' } } });
}

describe('without TRUST_PROXY', () => {
  it('serves a loopback client that sent no proxy headers', async () => {
    for (const path of OPERATOR_PATHS) expect((await send(direct().port, path)).status, path).toBe(200);
    expect((await send(direct().port, '/admin', { headers: { host: `localhost:${String(direct().port)}` } })).status).toBe(200);
  });

  it('refuses a loopback request carrying proxy headers: most likely a proxy nobody configured', async () => {
    for (const header of [
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=127.0.0.1' },
      { 'x-real-ip': '127.0.0.1' },
      { via: '1.1 nginx' },
      { 'x-forwarded-proto': 'https' },
    ]) {
      for (const path of OPERATOR_PATHS) refusedAsNotLoopback(await send(direct().port, path, { headers: header }));
    }
  });

  it('refuses a loopback request addressed to another host name (a proxy passing the public host, DNS rebinding)', async () => {
    for (const host of ['switchboard.example.com', 'switchboard.example.com:3000', '10.0.0.7']) {
      refusedAsNotLoopback(await send(direct().port, '/admin', { headers: { host } }));
    }
  });

  it('leaves the public routes alone', async () => {
    const answer = await send(direct().port, '/healthz', { headers: { 'x-forwarded-for': '203.0.113.9', host: 'switchboard.example.com' } });
    expect(answer.status).toBe(200);
  });
});

describe('with TRUST_PROXY naming the proxy', () => {
  it('takes the client from X-Forwarded-For, and serves it only when that client is loopback', async () => {
    expect((await send(proxied().port, '/admin', { localAddress: PROXY, headers: { 'x-forwarded-for': '127.0.0.1' } })).status).toBe(200);
    expect((await send(proxied().port, '/metrics', { localAddress: PROXY, headers: { 'x-forwarded-for': '::1' } })).status).toBe(200);
    for (const path of OPERATOR_PATHS) refusedAsNotLoopback(await send(proxied().port, path, { localAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.9' } }));
  });

  it('believes only the rightmost untrusted address: a client cannot forge a loopback entry', async () => {
    // The client sent "X-Forwarded-For: 127.0.0.1"; the proxy appended the address it saw.
    refusedAsNotLoopback(await send(proxied().port, '/admin', { localAddress: PROXY, headers: { 'x-forwarded-for': '127.0.0.1, 203.0.113.9' } }));
    // Two proxies: the trusted one is skipped, the outside client is found.
    refusedAsNotLoopback(await send(proxied().port, '/admin', { localAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.9, 127.0.0.5' } }));
    // Whatever a loopback client claimed to the left does not matter.
    expect((await send(proxied().port, '/admin', { localAddress: PROXY, headers: { 'x-forwarded-for': '198.51.100.1, 127.0.0.1' } })).status).toBe(200);
  });

  it('refuses a request from the proxy that names no client, or an unreadable one', async () => {
    refusedAsNotLoopback(await send(proxied().port, '/admin', { localAddress: PROXY }));
    refusedAsNotLoopback(await send(proxied().port, '/admin', { localAddress: PROXY, headers: { 'x-forwarded-for': 'unknown' } }));
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy, and refuses it as proxied', async () => {
    // 127.0.0.1 is loopback but not the trusted proxy: its header names nobody, and it looks proxied.
    refusedAsNotLoopback(await send(proxied().port, '/admin', { headers: { 'x-forwarded-for': '127.0.0.1' } }));
    expect((await send(proxied().port, '/admin')).status).toBe(200);
  });
});
