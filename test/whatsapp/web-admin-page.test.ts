/**
 * `GET /admin/whatsapp`, read from Redis as any web process would: the state in words, the QR code
 * as an image with how to scan it, the alert, a refresh until ready; guarded like the other
 * operator pages.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { createWhatsAppAdminRoutes } from '../../channels/whatsapp/web/admin-page.ts';
import { createLinkStateStore } from '../../channels/whatsapp/web/link-state.ts';
import { startTestServer, type TestServer } from '../web/http-test-server.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const TOKEN = 'admin-token-0123456789abcdef0123456789';

const servers: TestServer[] = [];
const leases: (() => Promise<boolean>)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(leases.splice(0).map((release) => release()));
});

/** Pretends the request came from `x-test-remote`. */
function fakeRemote(req: { headers: Record<string, unknown>; socket: object }): boolean {
  const remote = req.headers['x-test-remote'];
  Reflect.deleteProperty(req.socket, 'remoteAddress');
  if (typeof remote === 'string') Object.defineProperty(req.socket, 'remoteAddress', { value: remote, configurable: true });
  return false;
}

async function page(adminToken?: string) {
  const redis = await connect();
  const links = createLinkStateStore({ redis, prefix: prefix() });
  const server = await startTestServer(createWhatsAppAdminRoutes({ linkState: createLinkStateStore({ redis: await connect(), prefix: prefix() }), adminToken }), { intercept: fakeRemote });
  servers.push(server);
  const lease = createLease({ redis, key: `${prefix()}:lease:${String(servers.length)}`, ttlMs: 5000 });
  const fence = await lease.acquire();
  leases.push(() => lease.release());
  return { links, fence, url: `${server.url}/admin/whatsapp` };
}

describe('the WhatsApp operator page', () => {
  it('says no session started yet, and refreshes', async () => {
    const { url } = await page();
    const response = await fetch(url);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('No WhatsApp Web session has started yet');
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
  });

  it('shows the QR code as an image with how to scan it, without script, refreshing', async () => {
    const { links, fence, url } = await page();
    await links.write(fence, { status: 'waiting-for-qr', qr: '2@fakeQr,abc==,def==,ghi==' });
    const response = await fetch(url);
    const html = await response.text();
    expect(html).toContain('Waiting for the QR code to be scanned.');
    expect(html).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="QR code to link WhatsApp Web">/);
    expect(html).toContain('Linked devices › Link a device');
    expect(html).toContain('http-equiv="refresh"');
    expect(html).not.toContain('<script');
    const style = /<style>([^<]*)<\/style>/.exec(html)?.[1] ?? '';
    const styleHash = createHash('sha256').update(style).digest('base64');
    expect(response.headers.get('content-security-policy')).toBe(
      `default-src 'none'; style-src 'sha256-${styleHash}'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('shows the number once ready, without refreshing, and the alert after a drop, escaped', async () => {
    const { links, fence, url } = await page();
    await links.write(fence, { status: 'ready', number: '+447700900999' });
    const ready = await (await fetch(url)).text();
    expect(ready).toContain('Ready: messages are received and sent.');
    expect(ready).toContain('<strong>+447700900999</strong>');
    expect(ready).not.toContain('http-equiv="refresh"');
    expect(ready).not.toContain('<img');

    await links.write(fence, { status: 'disconnected', detail: '<CONFLICT>', number: '+447700900999', alert: 'The WhatsApp Web session dropped (<CONFLICT>); a new session starts in 0.5 s.' });
    const dropped = await (await fetch(url)).text();
    expect(dropped).toContain('<p class="alert" role="alert">The WhatsApp Web session dropped (&#60;CONFLICT&#62;)');
    expect(dropped).not.toContain('<CONFLICT>');
    expect(dropped).toContain('http-equiv="refresh"');
    expect(dropped).toMatch(/Recent changes.*disconnected.*ready/s);
  });

  it('answers 403 to other clients without ADMIN_TOKEN, and 401 without the bearer token when one is set', async () => {
    const open = await page();
    const remote = await fetch(open.url, { headers: { 'x-test-remote': '203.0.113.9' } });
    expect(remote.status).toBe(403);
    expect(await remote.text()).toContain('ADMIN_TOKEN');

    const guarded = await page(TOKEN);
    expect((await fetch(guarded.url)).status).toBe(401);
    expect((await fetch(guarded.url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(guarded.url, { headers: { authorization: `Bearer ${TOKEN}`, 'x-test-remote': '203.0.113.9' } })).status).toBe(200);
  });
});
