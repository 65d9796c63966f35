import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailedDelivery } from '../../queues/delivery-failures.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';
import { readOnlyApprovalStore } from '../../test/support/read-only-approval-store.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { createAdminRoutes } from '../admin-routes.ts';

const failure: FailedDelivery = {
  failedAt: '2030-01-01T10:00:00.000Z',
  channel: 'sms',
  destination: { channel: 'sms', address: '+15550100' },
  idempotencyKey: 'k',
  trace: { sessionId: 'ses_failed', turnId: 'turn-1' },
  attempts: 1,
  reason: 'permanent',
  code: 'delivery.permanent',
  message: 'refused',
};

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(createAdminRoutes({
    approvals: readOnlyApprovalStore([sampleApproval({ approvalId: 'appr-1', status: 'pending', sessionId: 'ses_approval' })], {}),
    failures: () => Promise.resolve([failure]),
    operations: () => Promise.resolve({ queues: [], sessions: [{ sessionId: 'ses_running', turnId: 't', actor: 'a', status: 'running', startedAt: '2030-01-01T10:00:00.000Z' }] }),
    adminToken: undefined,
  }));
});

afterAll(async () => {
  await server.close();
});

describe('/admin links to the inspector', () => {
  it('from its navigation, and from turns in progress, failed deliveries and approvals to their timelines', async () => {
    const html = await (await fetch(`${server.url}/admin`)).text();
    expect(html).toContain('<a href="/admin/conversations">Conversations</a>');
    for (const id of ['ses_running', 'ses_failed', 'ses_approval']) expect(html).toContain(`href="/admin/conversations/${id}">timeline</a>`);
  });
});
