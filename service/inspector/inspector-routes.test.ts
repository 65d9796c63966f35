import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { fakeSources, HOSTILE, SESSION, SUMMARY } from '../../test/support/inspector-fixtures.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import { openSse } from '../../test/web/sse-client.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import type { LogFollower } from './inspector-sources.ts';
import { createInspectorRoutes } from './inspector-routes.ts';

const TOKEN = 'inspector-token-0123456789abcdef012345';

/** Pretends the request came from `x-test-remote` (a real socket cannot come from elsewhere in a test). */
function fakeRemote(req: { headers: Record<string, unknown>; socket: object }): boolean {
  const remote = req.headers['x-test-remote'];
  Reflect.deleteProperty(req.socket, 'remoteAddress');
  if (typeof remote === 'string') Object.defineProperty(req.socket, 'remoteAddress', { value: remote, configurable: true });
  return false;
}

type Batch = Awaited<ReturnType<LogFollower['readAfter']>>[number];

/** Followers fed by the test: a read waits until a batch is pushed, its block time passes, or it is closed. */
function fakeFollowers() {
  const queued: Batch[] = [];
  const waiting = new Set<() => void>();
  const reads: string[] = [];
  let open = 0;
  return {
    reads,
    open: () => open,
    push(batch: Batch) {
      queued.push(batch);
      for (const wake of [...waiting]) wake();
    },
    follow(): LogFollower {
      open += 1;
      let closed = false;
      return {
        readAfter(after, blockMs) {
          reads.push(after);
          if (closed) return Promise.reject(new Error('Connection is closed.'));
          if (queued.length > 0) return Promise.resolve(queued.splice(0));
          return new Promise((resolve, reject) => {
            const wake = (): void => {
              waiting.delete(wake);
              clearTimeout(timer);
              if (closed) reject(new Error('Connection is closed.'));
              else resolve(queued.splice(0));
            };
            const timer = setTimeout(wake, blockMs);
            waiting.add(wake);
          });
        },
        close() {
          if (closed) return;
          closed = true;
          open -= 1;
          for (const wake of [...waiting]) wake();
        },
      };
    },
  };
}

const followers = fakeFollowers();
const sources = fakeSources({ follow: () => followers.follow() });
let open: TestServer;
let guarded: TestServer;
let short: TestServer;

beforeAll(async () => {
  open = await startTestServer(createInspectorRoutes({ sources, adminToken: undefined, streams: { maxViewers: 2, blockMs: 50 } }), { intercept: (req) => fakeRemote(req) });
  guarded = await startTestServer(createInspectorRoutes({ sources: fakeSources(), adminToken: TOKEN }));
  short = await startTestServer(createInspectorRoutes({ sources: fakeSources({ follow: () => followers.follow() }), adminToken: undefined, streams: { maxMs: 1, blockMs: 1000 } }));
});

afterAll(async () => {
  await open.close();
  await guarded.close();
  await short.close();
});

const PATHS = ['/admin/conversations', `/admin/conversations/${SESSION}`, `/admin/conversations/${SESSION}/events`, `/admin/conversations/${SESSION}/captures/turn-1/0`, '/admin/api/conversations', `/admin/api/conversations/${SESSION}`, '/admin/inspector/timeline.js'];

describe('access', () => {
  it('refuses clients that are not loopback without a token, and requests without the token when one is set', async () => {
    for (const path of PATHS) {
      expect({ path, status: (await fetch(`${open.url}${path}`, { headers: { 'x-test-remote': '203.0.113.9' } })).status }).toEqual({ path, status: 403 });
      const refused = await fetch(`${guarded.url}${path}`, { headers: { authorization: 'Bearer wrong' } });
      expect({ path, status: refused.status }).toEqual({ path, status: 401 });
      expect(refused.headers.get('www-authenticate')).toContain('Bearer');
    }
    expect((await fetch(`${guarded.url}/admin/conversations`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe('GET /admin/conversations', () => {
  it('lists conversations with links to their timelines, escaped, and a next-page link keeping the filters', async () => {
    const response = await fetch(`${open.url}/admin/conversations?channel=sms&state=settled&person=ada`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("form-action 'self'");
    expect(policy).not.toContain('script-src');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).toContain(`href="/admin/conversations/${SESSION}"`);
    expect(html).toContain('+15550100');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('id="next-page" href="/admin/conversations?person=ada&#38;channel=sms&#38;state=settled&#38;cursor=1893492000012.1"');
    expect(sources.searches.at(-1)).toEqual({ person: 'ada', channel: 'sms', state: 'settled', limit: 50 });
    expect(html).toContain('<option value="settled" selected>');
  });

  it('says when nothing matches', async () => {
    expect(await (await fetch(`${open.url}/admin/conversations?channel=email`)).text()).toContain('No conversation matches.');
  });

  it('answers a bad filter with 400 and the form, the value escaped', async () => {
    const response = await fetch(`${open.url}/admin/conversations?state=lost&person=${encodeURIComponent(HOSTILE)}`);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('state must be one of');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('<form class="filters"');
  });

  it('has a JSON twin', async () => {
    const body = (await (await fetch(`${open.url}/admin/api/conversations?address=%2B15550100&limit=5`)).json()) as { items: unknown[]; next?: string };
    expect(body).toEqual({ items: [SUMMARY], next: '1893492000012.1' });
    expect(sources.searches.at(-1)).toEqual({ address: '+15550100', limit: 5 });
    const bad = await fetch(`${open.url}/admin/api/conversations?from=soon`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'http.bad_request', details: { field: 'from' } } });
  });
});

describe('GET /admin/conversations/:id', () => {
  it('shows the timeline grouped by turn, everything escaped, with its approvals and its live script', async () => {
    const response = await fetch(`${open.url}/admin/conversations/${SESSION}`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).toContain('<script type="module" src="/admin/inspector/timeline.js"></script>');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('<section class="turn" data-turn="turn-1"');
    expect(html).toContain('id="approval-appr-1"');
    expect(html).toContain('sms to +15550100: attempt 1 retry, attempt 2 sent (SM123); provider: delivered');
    expect(html).toContain(`href="/admin/conversations/${SESSION}/captures/turn-1/0"`);
    expect(html).toMatch(/data-after="\d+-0" data-live="true"/);
    for (const type of ['injection', 'model_request', 'model_response', 'tool_call', 'approval', 'delivery', 'delivery_status', 'turn_settled', 'mystery_event']) expect(html).toContain(`data-type="${type}"`);
  });

  it('answers an unknown conversation with 404 and a malformed id with 400', async () => {
    expect((await fetch(`${open.url}/admin/conversations/ses_unknown`)).status).toBe(404);
    expect((await fetch(`${open.url}/admin/api/conversations/ses_unknown`)).status).toBe(404);
    expect((await fetch(`${open.url}/admin/conversations/a%3Ab`)).status).toBe(400);
    expect((await fetch(`${open.url}/admin/api/conversations/${'x'.repeat(101)}`)).status).toBe(400);
  });

  it('has a JSON twin with the entries and the approvals', async () => {
    const body = (await (await fetch(`${open.url}/admin/api/conversations/${SESSION}`)).json()) as { summary: unknown; entries: StoredEventLogEntry[]; truncated: boolean; approvals: { record: { approvalId: string } }[] };
    expect(body.summary).toEqual(SUMMARY);
    expect(body.entries).toHaveLength(14);
    expect(body.truncated).toBe(false);
    expect(body.approvals.map((detail) => detail.record.approvalId)).toEqual(['appr-1']);
  });

  it('shows a captured model call in full, 404 when none was kept, 400 for a bad step', async () => {
    const page = await fetch(`${open.url}/admin/conversations/${SESSION}/captures/turn-1/0`);
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(HOSTILE);
    expect(await (await fetch(`${open.url}/admin/api/conversations/${SESSION}/captures/turn-1/0`)).json()).toMatchObject({ request: { system: HOSTILE } });
    expect((await fetch(`${open.url}/admin/conversations/${SESSION}/captures/turn-1/1`)).status).toBe(404);
    expect((await fetch(`${open.url}/admin/api/conversations/${SESSION}/captures/turn-1/x`)).status).toBe(400);
  });
});

describe('GET /admin/conversations/:id/events', () => {
  it('sends the entries written after the resume point as views, keeps the stream alive, and stops following when closed', async () => {
    const client = await openSse(`${open.url}/admin/conversations/${SESSION}/events?after=1893492000014-0`);
    expect(client.response.status).toBe(200);
    expect(client.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await client.waitFor((read) => read.comments.includes('still here'));
    followers.push({ streamId: '1893492000020-0', entries: [{ id: '1893492000020-0', at: 1893492000020, type: 'tool_call', turnId: 'turn-2', data: { tool: 'book_flight', outcome: 'ok', args: { note: HOSTILE }, approvalId: 'appr-1' } }] });
    const [event] = await client.waitForEvents(1);
    expect(event?.event).toBe('entry');
    expect(event?.id).toBe('1893492000020-0');
    expect(JSON.parse(event?.data ?? '{}')).toMatchObject({ type: 'tool_call', turnId: 'turn-2', title: 'Tool call: book_flight (ok)', fields: expect.arrayContaining([{ label: 'Approval', value: 'appr-1', href: '#approval-appr-1' }]) as unknown });
    expect(followers.reads).toContain('1893492000020-0');
    client.close();
    await waitFor(() => followers.open() === 0, 'the follower was closed');
  });

  it('resumes from Last-Event-ID, refuses a bad resume point, and caps the viewers', async () => {
    expect((await fetch(`${open.url}/admin/conversations/${SESSION}/events?after=yesterday`)).status).toBe(400);
    const first = await openSse(`${open.url}/admin/conversations/${SESSION}/events`, { 'last-event-id': '1893492000030-0' });
    const second = await openSse(`${open.url}/admin/conversations/${SESSION}/events`);
    await first.waitFor((read) => read.retryMs !== undefined);
    await second.waitFor((read) => read.retryMs !== undefined);
    expect(followers.reads).toContain('1893492000030-0');
    const third = await fetch(`${open.url}/admin/conversations/${SESSION}/events`);
    expect(third.status).toBe(429);
    first.close();
    second.close();
  });

  it('ends a stream when its time is up', async () => {
    const client = await openSse(`${short.url}/admin/conversations/${SESSION}/events`);
    await client.waitFor((read) => read.events.some((event) => event.event === 'end'));
    expect(JSON.parse(client.events.find((event) => event.event === 'end')?.data ?? '{}')).toEqual({ reason: 'time' });
    client.close();
  });
});

describe('the timeline script', () => {
  it('is served as a script, and never parses data as markup or code', async () => {
    const response = await fetch(`${open.url}/admin/inspector/timeline.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const source = await readFile(new URL('./page/timeline.js', import.meta.url), 'utf8');
    expect(await response.text()).toBe(source);
    expect(source).not.toMatch(/\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setAttribute\(\s*['"](style|on)/);
  });
});
