import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord, DecisionOutcome } from '../../src/runtime/approvals/approval-types.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createTestIdentity } from '../../test/web/test-identity.ts';
import { createWebClient, type WebClient } from '../../test/web/web-client.ts';
import { checkWebChatEvent } from './stream/chat-event.ts';
import type { WebApprovalDecision } from './approvals.ts';
import { createWebRoutes } from './inbound.ts';
import type { WebEventStore } from './stream/event-store.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

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
    approvers: [{ channel: 'email', address: 'ana@example.com', personId: 'ana' }],
    allowRequester: true,
    ...(decided ? { decidedBy: { channel: 'web', address: 'web:b_x', personId: 'ana' }, decidedAt: '2030-01-01T10:05:00.000Z' } : {}),
  });
}

const calls: WebApprovalDecision[] = [];
const warnings: Readonly<Record<string, unknown>>[] = [];
let next: DecisionOutcome = { ok: true, record: record('granted', true) };
let server: TestServer;
let withoutApprovals: TestServer;
let browser: WebClient;

beforeEach(async () => {
  calls.length = 0;
  warnings.length = 0;
  next = { ok: true, record: record('granted', true) };
  const identity = createTestIdentity(await connect(), prefix());
  const base = { store: unusedStore, identity, tenantId: 't', status: () => ({ modelConfigured: true }), enqueue: () => Promise.reject(new Error('unused')) };
  server = await startTestServer(
    createWebRoutes({
      ...base,
      logger: { warn: (facts) => warnings.push(facts) },
      decideApproval: (input) => {
        calls.push(input);
        return Promise.resolve(next);
      },
    }),
  );
  withoutApprovals = await startTestServer(createWebRoutes(base));
  browser = createWebClient(server.url);
  await browser.session();
});

afterEach(async () => {
  await server.close();
  await withoutApprovals.close();
});

/** Makes `conversationId` the browser's own by opening its stream (HEAD claims it too). */
async function own(client: WebClient, conversationId: string): Promise<void> {
  if (client.cookie === undefined) await client.session();
  const response = await client.get(`/api/chat/${conversationId}/events`, { method: 'HEAD' });
  expect(response.status).toBe(200);
}

describe('POST /api/approvals/:approvalId', () => {
  it("decides as the session's identity and answers the new state", async () => {
    const answer = await browser.post('/api/approvals/appr-1', { decision: 'granted' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ approvalId: 'appr-1', status: 'granted', decidedBy: 'ana', decidedAt: '2030-01-01T10:05:00.000Z' });
    expect(calls).toEqual([
      {
        approvalId: 'appr-1',
        decision: 'granted',
        by: { channel: 'web', address: `web:${browser.last?.identity ?? ''}`, verified: true, basis: 'web session cookie' },
      },
    ]);
  });

  it('gives the old conversation header no weight: without the cookie it is 401', async () => {
    const headerOnly = await fetch(`${server.url}/api/approvals/appr-1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-conversation': 'conv-1' },
      body: JSON.stringify({ decision: 'granted' }),
    });
    expect(headerOnly.status).toBe(401);
    expect(calls).toEqual([]);
  });

  it('passes a conversation the session owns along with the decision', async () => {
    await own(browser, 'conv-2');
    const answer = await browser.post('/api/approvals/appr-1', { decision: 'denied', conversationId: 'conv-2' });
    expect(answer.status).toBe(200);
    expect(calls[0]).toMatchObject({ approvalId: 'appr-1', decision: 'denied', conversationId: 'conv-2' });
  });

  it("refuses with 403, before deciding, an answer naming another browser's conversation or an unowned one", async () => {
    const other = createWebClient(server.url);
    await own(other, 'theirs');
    const answer = await browser.post('/api/approvals/appr-1', { decision: 'granted', conversationId: 'theirs' });
    expect(answer.status).toBe(403);
    expect(answer.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'not_owner' } });
    expect((await browser.post('/api/approvals/appr-1', { decision: 'granted', conversationId: 'nobodys' })).status).toBe(403);
    expect(calls).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ approvalId: 'appr-1', conversationId: 'theirs', by: { address: `web:${browser.last?.identity ?? ''}` } });
  });

  it('answers 401 without a session and 403 without the CSRF token or from another site', async () => {
    const bare = await fetch(`${server.url}/api/approvals/appr-1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"decision":"granted"}' });
    expect(bare.status).toBe(401);
    expect((await browser.post('/api/approvals/appr-1', { decision: 'granted' }, { csrf: false })).status).toBe(403);
    expect((await browser.post('/api/approvals/appr-1', { decision: 'granted' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(calls).toEqual([]);
  });

  it.each([
    [{ decision: 'maybe' }, 'decision'],
    [{}, 'decision'],
    [{ decision: 'granted', conversationId: 'bad id!' }, 'conversationId'],
    [{ decision: 'granted', conversationId: 7 }, 'conversationId'],
    [{ decision: 'granted', argsHash: 'abc' }, 'argsHash'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const answer = await browser.post('/api/approvals/appr-1', body);
    expect(answer.status).toBe(400);
    expect(answer.body['error']).toMatchObject({ code: 'http.bad_request', details: { field } });
    expect(calls).toEqual([]);
  });

  it('refuses a malformed body and a malformed id with 400', async () => {
    expect((await browser.post('/api/approvals/appr-1', '{nope')).status).toBe(400);
    expect((await browser.post('/api/approvals/a%20b', { decision: 'granted' })).status).toBe(400);
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
    const answer = await browser.post('/api/approvals/appr-1', { decision: 'granted' });
    expect(answer.status).toBe(status);
    expect(answer.body['error']).toMatchObject({ code: `approval.${refusal}`, message: `Refused: ${refusal}.`, details: { refusal } });
    const details = (answer.body['error'] as { details: Record<string, unknown> }).details;
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
