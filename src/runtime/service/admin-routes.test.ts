import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/web/http-test-server.ts';
import type { ApprovalAuditEntry, ApprovalRecord } from '../approvals/approval-types.ts';
import { createAdminRoutes, escapeHtml } from './admin-routes.ts';
import { readOnlyApprovalStore } from '../../../test/support/read-only-approval-store.ts';
import { sampleApproval } from '../../../test/support/approval-fixtures.ts';

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

beforeAll(async () => {
  open = await startTestServer(createAdminRoutes({ approvals: fakeStore, adminToken: undefined }), { intercept: (req) => fakeRemote(req) });
  guarded = await startTestServer(createAdminRoutes({ approvals: fakeStore, adminToken: TOKEN }));
});

afterAll(async () => {
  await open.close();
  await guarded.close();
});

describe('access', () => {
  it('serves loopback clients when no token is set', async () => {
    for (const remote of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const response = await fetch(`${open.url}/admin/api/approvals`, { headers: { 'x-test-remote': remote } });
      expect(response.status).toBe(200);
    }
  });

  it('refuses other clients with 403 when no token is set', async () => {
    for (const path of ['/admin', '/admin/api/approvals', '/admin/api/approvals/appr-yes']) {
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
