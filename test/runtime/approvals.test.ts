import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, type ScenarioCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import type { JsonAnswer } from '../web/web-client.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

async function waitForApprovals(conversation: string, count = 1): Promise<{ approvalId: string; shortCode: string; args: unknown }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const requests = (await sb().events(conversation)).flatMap(({ event }) =>
      event.type === 'part' && event.part.metadata.partType === 'approval-request'
        ? [event.part.data as { approvalId: string; shortCode: string; args: unknown }]
        : [],
    );
    if (requests.length >= count) return requests;
    if (Date.now() > deadline) throw new Error(`no approval request in ${conversation}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Answers from the card of `conversation`, as the browser that posted there (the harness's own). */
async function decide(approvalId: string, decision: 'granted' | 'denied', conversation: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return sb().decide(approvalId, decision, { conversationId: conversation });
}

function texts(events: readonly StoredWebChatEvent[]): (string | undefined)[] {
  return events.flatMap(({ event }) => (event.type === 'part' && event.part.text !== undefined ? [event.part.text] : []));
}

/** A model that asks to pay, then answers from the tool result it got. */
function payScenario(tag: string, calls: { invoice: string; amount: number }[], seen: ScenarioCall[]) {
  return scenarioScript({
    [tag]: [
      () => reply(respond([part('ack', 'Paying that now.')], 'awaiting'), ...calls.map((call) => toolCall('pay_invoice', call))),
      (call) => {
        seen.push(call);
        const outcome = call.toolResults.map((result) => (result.is_error === true ? `refused: ${result.content}` : `ok: ${result.content}`)).join(' | ');
        return reply(respond([part('response', outcome)], 'complete'));
      },
    ],
  });
}

describe('approvals through the running service', () => {
  it('grant: the card asks, the requester approves, the handler runs once and the turn resumes', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('grant', [{ invoice: 'INV-1', amount: 120 }], seen));
    await sb().post('apr-grant', 'pay INV-1 #grant');
    const [request] = await waitForApprovals('apr-grant');
    if (request === undefined) throw new Error('no request');
    expect(request.approvalId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(request.shortCode).toMatch(/^[A-Z0-9]{6}$/);
    expect(seen).toHaveLength(0);
    const decided = await decide(request.approvalId, 'granted', 'apr-grant');
    expect(decided.status).toBe(200);
    const events = await sb().settled('apr-grant');
    expect(texts(events).at(-1)).toContain('ok: {"paid":"INV-1","amount":120,"approvalId":"' + request.approvalId + '"}');
    const log = await sb().log('apr-grant');
    expect(log.filter((entry) => entry.type === 'tool_call' && entry.data['tool'] === 'pay_invoice' && entry.data['outcome'] === 'ok')).toHaveLength(1);
    expect(events.some(({ event }) => event.type === 'approval' && event.status === 'granted')).toBe(true);
  });

  it('deny: the model gets a ToolDenied result and says so', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('deny', [{ invoice: 'INV-2', amount: 300 }], seen));
    await sb().post('apr-deny', 'pay INV-2 #deny');
    const [request] = await waitForApprovals('apr-deny');
    expect((await decide(request?.approvalId ?? '', 'denied', 'apr-deny')).status).toBe(200);
    const events = await sb().settled('apr-deny');
    expect(texts(events).at(-1)).toMatch(/refused: ToolDenied: .* denied "pay_invoice"/);
    const log = await sb().log('apr-deny');
    expect(log.some((entry) => entry.type === 'tool_call' && entry.data['tool'] === 'pay_invoice' && entry.data['outcome'] === 'ok')).toBe(false);
  });

  it('auto-approves by policy: under 50 runs at once, with no request', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('small', [{ invoice: 'INV-3', amount: 42 }], seen));
    await sb().post('apr-small', 'pay INV-3 #small');
    const events = await sb().settled('apr-small');
    expect(texts(events).at(-1)).toContain('ok: {"paid":"INV-3","amount":42,"approvalId":null}');
    expect(events.some(({ event }) => event.type === 'part' && event.part.metadata.partType === 'approval-request')).toBe(false);
  });

  it('refuses a non-approver, then takes the first valid answer only; an unknown id is 404', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('who', [{ invoice: 'INV-4', amount: 900 }], seen));
    await sb().post('apr-who', 'pay INV-4 #who');
    const [request] = await waitForApprovals('apr-who');
    const id = request?.approvalId ?? '';
    const stranger = await sb().decide(id, 'granted', { as: sb().client() });
    expect(stranger.status).toBe(403);
    // The finance desk (an approver by role) signs in on the web with a sign-in link.
    const finance = await sb().decide(id, 'granted', { as: await sb().signIn('fin') });
    expect(finance.status).toBe(200);
    expect(finance.body['decidedBy']).toBe('fin');
    const again = await decide(id, 'denied', 'apr-who');
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toMatch(/[Aa]lready granted by/);
    expect((await decide('AAAAAAAAAAAAAAAAAAAAAA', 'granted', 'apr-who')).status).toBe(404);
    const events = await sb().settled('apr-who');
    expect(texts(events).at(-1)).toContain('ok: ');
    expect(events.some(({ event }) => event.type === 'approval' && event.approvalId === id && event.status === 'granted' && event.decidedBy === 'fin')).toBe(true);
    const detail = (await (await fetch(`${sb().url}/admin/api/approvals/${id}`)).json()) as { audit: { action: string; by?: { personId?: string; basis?: string; verified?: boolean } }[] };
    expect(detail.audit.slice(0, 3).map((entry) => entry.action)).toEqual(['requested', 'refused', 'granted']);
    expect(detail.audit[1]?.by).toMatchObject({ channel: 'web', verified: true, basis: 'web session cookie' });
    expect(detail.audit[1]?.by?.personId).toBeUndefined();
    expect(detail.audit[2]?.by).toMatchObject({ channel: 'web', personId: 'fin', verified: true, basis: 'web session cookie; sign-in link: invite by operator' });
  });

  it('two approvals pending at once: the turn resumes only when both are decided', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('two', [{ invoice: 'INV-5', amount: 100 }, { invoice: 'INV-6', amount: 200 }], seen));
    await sb().post('apr-two', 'pay both #two');
    const requests = await waitForApprovals('apr-two', 2);
    expect(new Set(requests.map((request) => request.approvalId)).size).toBe(2);
    expect((await decide(requests[0]?.approvalId ?? '', 'granted', 'apr-two')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toHaveLength(0);
    expect((await decide(requests[1]?.approvalId ?? '', 'denied', 'apr-two')).status).toBe(200);
    const events = await sb().settled('apr-two');
    const answer = texts(events).at(-1) ?? '';
    expect(answer).toMatch(/^ok: .*INV-5.* \| refused: ToolDenied/);
  });

  it('the operator page lists queues, the suspended session and the pending approval with its trail', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('admin', [{ invoice: 'INV-8', amount: 75 }], seen));
    await sb().post('apr-admin', 'pay INV-8 #admin');
    const [request] = await waitForApprovals('apr-admin');
    const page = await (await fetch(`${sb().url}/admin`)).text();
    expect(page).toContain('<h1>Queues</h1>');
    expect(page).toMatch(/<td>turns<\/td>/);
    expect(page).toContain(`suspended ${request?.approvalId ?? ''}`);
    expect(page).toContain(request?.approvalId ?? 'missing');
    const detail = (await (await fetch(`${sb().url}/admin/api/approvals/${request?.approvalId ?? ''}`)).json()) as { audit: { action: string }[] };
    expect(detail.audit.map((entry) => entry.action)).toEqual(['requested']);
    expect((await decide(request?.approvalId ?? '', 'denied', 'apr-admin')).status).toBe(200);
    await sb().settled('apr-admin');
  });
});

describe('an answer bound to other arguments', () => {
  it('is refused when its argsHash does not match the pending call, and the right one is accepted', async () => {
    const seen: ScenarioCall[] = [];
    sb().fake.respondWith(payScenario('hash', [{ invoice: 'INV-10', amount: 610 }], seen));
    await sb().post('apr-hash', 'pay INV-10 #hash');
    const [request] = await waitForApprovals('apr-hash');
    const shown = request as { approvalId: string; argsHash?: string } | undefined;
    expect(shown?.argsHash).toMatch(/^[0-9a-f]{64}$/);
    const post = (argsHash: string): Promise<JsonAnswer> =>
      sb().decide(shown?.approvalId ?? '', 'granted', { conversationId: 'apr-hash', argsHash });
    const forged = await post('0'.repeat(64));
    expect(forged.status).toBe(409);
    expect(JSON.stringify(forged.body)).toContain('args_mismatch');
    expect((await post(shown?.argsHash ?? '')).status).toBe(200);
    const events = await sb().settled('apr-hash');
    expect(texts(events).at(-1)).toContain('"paid":"INV-10"');
  });
});
