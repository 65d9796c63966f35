/**
 * Security headers of the service's pages, against a real web process (and the WhatsApp link page
 * on the real server): a Content-Security-Policy without inline script, never framed, nosniff and
 * no referrer on every HTML answer, nosniff on every other answer.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWhatsAppAdminRoutes } from '../../channels/whatsapp/web/admin-page.ts';
import { createHttpServer } from '../../src/runtime/http/http-server.ts';
import { createRouter } from '../../src/runtime/http/router.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { useRedis } from '../support/redis.ts';
import { send, useWebService, type RawAnswer } from './web-service.ts';

const redisUrl = useRedis();
const web = useWebService({ redisUrl });
let whatsapp: ListeningServer;

beforeAll(async () => {
  const linkState = { read: () => Promise.resolve(undefined), history: () => Promise.resolve([]) };
  whatsapp = await listenOnLoopback(createHttpServer(createRouter(createWhatsAppAdminRoutes({ linkState, adminToken: undefined }))));
});

afterAll(async () => {
  await whatsapp.close();
});

/** The policy's directives by name. */
function directives(answer: RawAnswer): Map<string, string> {
  const policy = String(answer.headers['content-security-policy'] ?? '');
  return new Map(policy.split(';').map((part) => part.trim()).filter((part) => part !== '').map((part) => {
    const [name = '', ...values] = part.split(/\s+/);
    return [name, values.join(' ')];
  }));
}

function expectPageHeaders(answer: RawAnswer): Map<string, string> {
  expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(answer.headers['x-frame-options']).toBe('DENY');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
  const policy = directives(answer);
  expect(policy.get('frame-ancestors')).toBe("'none'");
  expect(String(answer.headers['content-security-policy'])).not.toContain('unsafe-inline');
  expect(String(answer.headers['content-security-policy'])).not.toContain('unsafe-eval');
  return policy;
}

/** The policy source that allows the page's one inline style. */
function inlineStyleSource(html: string): string {
  const css = /<style>([^<]*)<\/style>/.exec(html)?.[1] ?? '';
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

describe('security headers', () => {
  it('the web chat page: scripts and styles only from its own origin, and no inline script in it', async () => {
    const answer = await send(web().port, '/');
    expect(answer.status).toBe(200);
    const policy = expectPageHeaders(answer);
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(answer.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(answer.body).not.toMatch(/\son[a-z]+\s*=/i);
    expect(answer.body).not.toMatch(/\sstyle\s*=/i);
    expect(answer.body).not.toContain('<style');
    const script = await readFile(new URL('../../channels/web/page/chat.js', import.meta.url), 'utf8');
    expect(script).not.toMatch(/\beval\(|new Function\(|setAttribute\(\s*['"](style|on)/);
  });

  it('the operator page: no script at all, its inline style allowed by hash only', async () => {
    const answer = await send(web().port, '/admin');
    expect(answer.status).toBe(200);
    const policy = expectPageHeaders(answer);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.has('script-src')).toBe(false);
    expect(policy.get('style-src')).toBe(inlineStyleSource(answer.body));
    expect(answer.body).not.toContain('<script');
  });

  it('the WhatsApp link page: no script, its style by hash, images only as data URLs', async () => {
    const answer = await send(whatsapp.port, '/admin/whatsapp');
    expect(answer.status).toBe(200);
    const policy = expectPageHeaders(answer);
    expect(policy.get('style-src')).toBe(inlineStyleSource(answer.body));
    expect(policy.get('img-src')).toBe('data:');
    expect(policy.has('script-src')).toBe(false);
  });

  it('the sign-in answer page', async () => {
    const answer = await send(web().port, '/signin/not-a-token');
    expect(answer.status).toBe(404);
    expect(expectPageHeaders(answer).get('default-src')).toBe("'none'");
  });

  it('nosniff on the other answers too', async () => {
    for (const path of ['/static/chat.js', '/static/chat.css', '/api/chat/config', '/healthz', '/nothing-here', '/api/chat/x/events']) {
      expect((await send(web().port, path)).headers['x-content-type-options'], path).toBe('nosniff');
    }
  });
});
