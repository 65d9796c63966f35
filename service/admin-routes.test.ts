import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/web/http-test-server.ts';
import type { ApprovalAuditEntry, ApprovalRecord } from '../src/runtime/approvals/approval-types.ts';
import type { FailedDelivery } from '../queues/delivery-failures.ts';
import { escapeHtml } from '../channels/kit/render/html-escape.ts';
import { createAdminRoutes, describeDeliveryFailure, type FailedDeliveriesQuery } from './admin-routes.ts';
import { readOnlyApprovalStore } from '../test/support/read-only-approval-store.ts';
import { sampleApproval } from '../test/support/approval-fixtures.ts';

const TOKEN = 'admin-token-0123456789abcdef0123456789';

function approval(id: string, status: ApprovalRecord['status'], createdAt: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return sampleApproval({
    approvalId: id,
    status,
    createdAt,
    shortCode: `C${id.slice(-5).toUpperCase()}`,
    sessionId: 's',
    turnId: 't',
    toolCallId: 'tc',
    args: { flight: 'EJ4521' },
    approvers: [{ channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true }],
    ...extra,
  });
}

const records: ApprovalRecord[] = [
  approval('appr-old', 'pending', '2030-01-01T09:00:00.000Z'),
  approval('appr-new', 'pending', '2030-01-01T10:00:00.000Z', { args: { note: '<script>alert(1)</script>' }, toolName: '<b>tool</b>' }),
  approval('appr-yes', 'granted', '2030-01-01T08:00:00.000Z', {
    decidedBy: { channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true },
    decidedAt: '2030-01-01T08:05:00.000Z',
  }),
  approval('appr-gone', 'expired', '2030-01-01T07:00:00.000Z'),
];

const audits: Record<string, ApprovalAuditEntry[]> = {
  'appr-yes': [
    { at: '2030-01-01T08:00:00.000Z', action: 'requested', by: { channel: 'web', address: 'web:conv-1' } },
    { at: '2030-01-01T08:02:00.000Z', action: 'refused', by: { channel: 'sms', address: '+15550100' }, detail: 'not an approver' },
    { at: '2030-01-01T08:05:00.000Z', action: 'granted', by: { channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true } },
  ],
};

const fakeStore = readOnlyApprovalStore(records, audits);

const failedDeliveries: FailedDelivery[] = [
  {
    failedAt: '2030-01-01T10:00:00.000Z',
    channel: 'sms',
    destination: { channel: 'sms', address: '+15550100' },
    idempotencyKey: 'turn-1/part-0/sms',
    trace: { sessionId: 'session-1', turnId: 'turn-1' },
    attempts: 1,
    reason: 'permanent',
    code: 'delivery.permanent',
    providerCode: '21610',
    status: 400,
    message: 'Attempt to send to unsubscribed recipient <img src=x onerror=alert(1)>',
  },
  {
    failedAt: '2030-01-01T09:00:00.000Z',
    channel: 'email',
    destination: { channel: 'email', address: 'ops@example.com' },
    idempotencyKey: 'turn-0/part-0/email',
    attempts: 8,
    reason: 'exhausted',
    code: 'delivery.failed',
    status: 503,
    message: 'Service Unavailable',
  },
];

const failureQueries: FailedDeliveriesQuery[] = [];

function listFailures(query: FailedDeliveriesQuery): Promise<FailedDelivery[]> {
  failureQueries.push(query);
  const matching = failedDeliveries.filter((failure) => query.channel === undefined || failure.channel === query.channel);
  return Promise.resolve(matching.slice(0, query.limit));
}

/** Pretends the request came from `x-test-remote` (a real socket cannot come from elsewhere in a test). */
function fakeRemote(req: { headers: Record<string, unknown>; socket: object }): boolean {
  const remote = req.headers['x-test-remote'];
  // Kept-alive sockets serve several requests: drop an earlier pretence first.
  Reflect.deleteProperty(req.socket, 'remoteAddress');
  if (typeof remote === 'string') Object.defineProperty(req.socket, 'remoteAddress', { value: remote, configurable: true });
  return false;
}

let open: TestServer;
let guarded: TestServer;
let withoutFailures: TestServer;

beforeAll(async () => {
  open = await startTestServer(createAdminRoutes({ approvals: fakeStore, adminToken: undefined, failures: listFailures }), {
    intercept: (req) => fakeRemote(req),
  });
  guarded = await startTestServer(createAdminRoutes({ approvals: fakeStore, adminToken: TOKEN, failures: listFailures }));
  withoutFailures = await startTestServer(createAdminRoutes({ approvals: fakeStore, adminToken: undefined }));
});

afterAll(async () => {
  await open.close();
  await guarded.close();
  await withoutFailures.close();
});

describe('access', () => {
  it('serves loopback clients when no token is set', async () => {
    for (const remote of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const response = await fetch(`${open.url}/admin/api/approvals`, { headers: { 'x-test-remote': remote } });
      expect(response.status).toBe(200);
    }
  });

  it('refuses other clients with 403 when no token is set', async () => {
    for (const path of ['/admin', '/admin/api/approvals', '/admin/api/approvals/appr-yes', '/admin/api/deliveries/failed']) {
      const response = await fetch(`${open.url}${path}`, { headers: { 'x-test-remote': '203.0.113.9' } });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('ADMIN_TOKEN');
    }
  });

  it('requires the bearer token when one is set, even on loopback', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }]) {
      const response = await fetch(`${guarded.url}/admin`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
    }
    const ok = await fetch(`${guarded.url}/admin`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect((await fetch(`${guarded.url}/admin/api/deliveries/failed`)).status).toBe(401);
    const failures = await fetch(`${guarded.url}/admin/api/deliveries/failed`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(failures.status).toBe(200);
  });
});

describe('GET /admin', () => {
  it('lists pending, decided and expired approvals newest first with their audit trails, all escaped', async () => {
    const response = await fetch(`${open.url}/admin`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('Pending (2)');
    expect(html).toContain('Decided (1)');
    expect(html).toContain('Expired (1)');
    expect(html.indexOf('appr-new')).toBeLessThan(html.indexOf('appr-old'));
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<b>tool</b>');
    expect(html).toContain(escapeHtml('note: "<script>alert(1)</script>"'));
    expect(html).toContain('boss (email boss@example.com), verified at 2030-01-01T08:05:00.000Z');
    expect(html).toContain('refused by sms +15550100: not an approver');
    expect(html).toContain('requested by web web:conv-1');
  });
});

describe('failed deliveries', () => {
  it('are shown on the page with their reason in words, all escaped', async () => {
    const html = await (await fetch(`${open.url}/admin`)).text();
    expect(html).toContain('Failed deliveries (2)');
    expect(html).not.toContain('<img src=x onerror=alert(1)>');
    const [optedOut, exhausted] = failedDeliveries;
    if (optedOut === undefined || exhausted === undefined) throw new Error('fixtures missing');
    expect(html).toContain(escapeHtml(describeDeliveryFailure(optedOut)));
    expect(describeDeliveryFailure(optedOut)).toContain('The provider refused it; not retried');
    expect(describeDeliveryFailure(optedOut)).toContain('(HTTP 400, provider code 21610)');
    expect(html).toContain(escapeHtml(describeDeliveryFailure(exhausted)));
    expect(describeDeliveryFailure(exhausted)).toBe('Gave up after 8 failed attempts; the last one: Service Unavailable (HTTP 503)');
    expect(html).toContain('session-1 / turn-1');
    expect(html.indexOf('turn-1/part-0/sms')).toBeLessThan(html.indexOf('turn-0/part-0/email'));
  });

  it('are listed as JSON with a description, by channel and up to a limit', async () => {
    type Listed = { failures: (FailedDelivery & { description: string })[] };
    const all = (await (await fetch(`${open.url}/admin/api/deliveries/failed`)).json()) as Listed;
    expect(all.failures.map((failure) => failure.idempotencyKey)).toEqual(['turn-1/part-0/sms', 'turn-0/part-0/email']);
    expect(all.failures[0]).toMatchObject({ reason: 'permanent', providerCode: '21610', trace: { sessionId: 'session-1' } });
    expect(all.failures[0]?.description).toBe(describeDeliveryFailure(failedDeliveries[0] as FailedDelivery));
    const email = (await (await fetch(`${open.url}/admin/api/deliveries/failed?channel=email&limit=5`)).json()) as Listed;
    expect(email.failures.map((failure) => failure.channel)).toEqual(['email']);
    expect(failureQueries).toContainEqual({ channel: 'email', limit: 5 });
  });

  it('refuses a bad limit with 400, and answers 404 where failures are not wired', async () => {
    for (const limit of ['0', '101', 'ten', '1.5']) {
      expect((await fetch(`${open.url}/admin/api/deliveries/failed?limit=${limit}`)).status).toBe(400);
    }
    expect((await fetch(`${withoutFailures.url}/admin/api/deliveries/failed`)).status).toBe(404);
    expect(await (await fetch(`${withoutFailures.url}/admin`)).text()).not.toContain('Failed deliveries');
  });

  it('describe an unknown outcome and a stalled worker in words', () => {
    const base = failedDeliveries[1] as FailedDelivery;
    expect(describeDeliveryFailure({ ...base, reason: 'unconfirmed' })).toContain('Check with the provider before sending it again');
    const unconfirmed = { ...base, reason: 'unconfirmed' as const, message: 'Slack keeps no record of an ephemeral message' };
    expect(describeDeliveryFailure({ ...unconfirmed, trace: { sessionId: 's-1' } })).toContain('(Slack keeps no record of an ephemeral message). The person is told on their next turn.');
    expect(describeDeliveryFailure(unconfirmed)).not.toContain('next turn');
    expect(describeDeliveryFailure({ ...base, reason: 'stalled', message: 'job stalled more than allowable limit' })).toContain(
      'stopped responding too often (job stalled more than allowable limit)',
    );
  });
});

describe('the JSON API', () => {
  it('lists approvals, filtered by status', async () => {
    const all = (await (await fetch(`${open.url}/admin/api/approvals`)).json()) as { approvals: ApprovalRecord[] };
    expect(all.approvals.map((record) => record.approvalId)).toEqual(['appr-new', 'appr-old', 'appr-yes', 'appr-gone']);
    const pending = (await (await fetch(`${open.url}/admin/api/approvals?status=pending`)).json()) as { approvals: ApprovalRecord[] };
    expect(pending.approvals.map((record) => record.approvalId)).toEqual(['appr-new', 'appr-old']);
  });

  it('refuses an unknown status with 400', async () => {
    const response = await fetch(`${open.url}/admin/api/approvals?status=maybe`);
    expect(response.status).toBe(400);
  });

  it('shows one approval with its audit trail, 404 when unknown', async () => {
    const response = await fetch(`${open.url}/admin/api/approvals/appr-yes`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { approval: ApprovalRecord; audit: ApprovalAuditEntry[] };
    expect(body.approval.status).toBe('granted');
    expect(body.audit.map((entry) => entry.action)).toEqual(['requested', 'refused', 'granted']);
    expect((await fetch(`${open.url}/admin/api/approvals/nope`)).status).toBe(404);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});
