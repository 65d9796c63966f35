import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRecord, DecisionOutcome } from '../../src/runtime/approvals/approval-types.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { checkWebChatEvent } from './stream/chat-event.ts';
import type { WebApprovalDecision } from './approvals.ts';
import { createWebRoutes } from './inbound.ts';
import type { WebEventStore } from './stream/event-store.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';

const unusedStore: WebEventStore = {
  append: () => Promise.reject(new Error('unused')),
  readAfter: () => Promise.reject(new Error('unused')),
  subscribe: () => Promise.reject(new Error('unused')),
  close: () => Promise.resolve(),
};

function record(status: ApprovalRecord['status'], decided = false): ApprovalRecord {
  return sampleApproval({
    approvalId: 'appr-1',
    status,
    sessionId: 's',
    turnId: 't',
    toolCallId: 'tc',
    args: { flight: 'EJ4521' },
    approvers: [{ channel: 'web', address: 'web:conv-1' }],
    allowRequester: true,
    ...(decided ? { decidedBy: { channel: 'web', address: 'web:conv-1', personId: 'ana' }, decidedAt: '2030-01-01T10:05:00.000Z' } : {}),
  });
}

const calls: WebApprovalDecision[] = [];
let next: DecisionOutcome = { ok: true, record: record('granted', true) };
let server: TestServer;
let withoutApprovals: TestServer;

beforeAll(async () => {
  const base = { store: unusedStore, tenantId: 't', status: () => ({ modelConfigured: true }), enqueue: () => Promise.reject(new Error('unused')) };
  server = await startTestServer(
    createWebRoutes({
      ...base,
      decideApproval: (input) => {
        calls.push(input);
        return Promise.resolve(next);
      },
    }),
  );
  withoutApprovals = await startTestServer(createWebRoutes(base));
});

afterAll(async () => {
  await server.close();
  await withoutApprovals.close();
});

async function post(body: unknown, headers: Record<string, string> = {}, id = 'appr-1'): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/api/approvals/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('POST /api/approvals/:approvalId', () => {
  it('decides with the conversation from the header and answers the new state', async () => {
    calls.length = 0;
    next = { ok: true, record: record('granted', true) };
    const answer = await post({ decision: 'granted' }, { 'x-switchboard-conversation': 'conv-1' });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ approvalId: 'appr-1', status: 'granted', decidedBy: 'ana', decidedAt: '2030-01-01T10:05:00.000Z' });
    expect(calls).toEqual([{ approvalId: 'appr-1', decision: 'granted', conversationId: 'conv-1' }]);
  });

  it('takes the conversation from the body too', async () => {
    calls.length = 0;
    const answer = await post({ decision: 'denied', conversationId: 'conv-2' });
    expect(answer.status).toBe(200);
    expect(calls[0]).toEqual({ approvalId: 'appr-1', decision: 'denied', conversationId: 'conv-2' });
  });

  it.each([
    [{ decision: 'maybe', conversationId: 'c' }, 'decision'],
    [{ conversationId: 'c' }, 'decision'],
    [{ decision: 'granted' }, 'conversationId'],
    [{ decision: 'granted', conversationId: 'bad id!' }, 'conversationId'],
    [{ decision: 'granted', conversationId: 7 }, 'conversationId'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    calls.length = 0;
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toMatchObject({ code: 'http.bad_request', details: { field } });
    expect(calls).toEqual([]);
  });

  it('refuses a malformed body and a malformed id with 400', async () => {
    expect((await post('{nope', { 'x-switchboard-conversation': 'c' })).status).toBe(400);
    expect((await post({ decision: 'granted', conversationId: 'c' }, {}, 'a%20b')).status).toBe(400);
  });

  it.each([
    ['unknown_approval', 404, undefined],
    ['not_an_approver', 403, 'pending'],
    ['already_decided', 409, 'denied'],
    ['expired', 410, 'expired'],
    ['args_mismatch', 409, 'pending'],
  ] as const)('answers the refusal %s with %i, its message and the status', async (refusal, status, current) => {
    next = {
      ok: false,
      refusal,
      message: `Refused: ${refusal}.`,
      ...(current === undefined ? {} : { record: record(current, current === 'denied') }),
    };
    const answer = await post({ decision: 'granted', conversationId: 'conv-1' });
    expect(answer.status).toBe(status);
    expect(answer.json['error']).toMatchObject({ code: `approval.${refusal}`, message: `Refused: ${refusal}.`, details: { refusal } });
    const details = (answer.json['error'] as { details: Record<string, unknown> }).details;
    expect(details['status']).toBe(current);
  });

  it('is absent when createWebRoutes has no decideApproval', async () => {
    const response = await fetch(`${withoutApprovals.url}/api/approvals/appr-1`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });
});

describe('the approval event', () => {
  it('is a valid web chat event', () => {
    expect(checkWebChatEvent({ type: 'approval', approvalId: 'a', status: 'granted', decidedBy: 'ana', decidedAt: '2030-01-01T00:00:00Z' }).ok).toBe(true);
    expect(checkWebChatEvent({ type: 'approval', approvalId: 'a', status: 'expired' }).ok).toBe(true);
  });

  it.each([
    [{ type: 'approval', status: 'granted' }, 'approvalId'],
    [{ type: 'approval', approvalId: 'a', status: 'pending' }, 'status'],
    [{ type: 'approval', approvalId: 'a', status: 'denied', decidedBy: 3 }, 'decidedBy'],
    [{ type: 'approval', approvalId: 'a', status: 'denied', decidedAt: '' }, 'decidedAt'],
  ])('refuses %j (%s)', (value, name) => {
    const check = checkWebChatEvent(value);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problem).toContain(name);
  });
});
