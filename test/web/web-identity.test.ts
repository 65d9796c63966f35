/**
 * The web identity against the running service (real HTTP, real Redis, real approval store): the
 * generated session secret is shared by processes, conversations answer only their owner, and an
 * approval answer naming another browser's conversation is refused before it is decided.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keptSecretKey } from '../../channels/kit/kept-secret.ts';
import { SESSION_SECRET_PURPOSE } from '../../channels/web/identity/session-cookie.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { uniquePrefix, useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { createWebClient } from './web-client.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const prefix = uniquePrefix('web-identity');
const sb = useSwitchboard({ appDir, redisUrl, prefix });
const otherProcess = useSwitchboard({ appDir, redisUrl, prefix, role: 'web' });

async function approvalIn(conversation: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await sb().events(conversation)).flatMap(({ event }) =>
      event.type === 'part' && event.part.metadata.partType === 'approval-request' ? [(event.part.data as { approvalId: string }).approvalId] : [],
    );
    if (found[0] !== undefined) return found[0];
    if (Date.now() > deadline) throw new Error(`no approval request in ${conversation}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the web identity in the running service', () => {
  it('generates the session secret once in Redis, and every process accepts the cookies of another', async () => {
    const secret = await sb().redis().get(keptSecretKey(prefix, SESSION_SECRET_PURPOSE));
    expect(secret?.length).toBeGreaterThanOrEqual(32);
    const browser = createWebClient(sb().url);
    const issued = await browser.session();
    const elsewhere = createWebClient(otherProcess().url);
    elsewhere.cookie = browser.cookie;
    expect(await elsewhere.session()).toEqual(issued);
  });

  it('answers 403 to a message or a stream for a conversation another browser owns, and accepts nothing', async () => {
    sb().fake.respondWith(scenarioScript({ mine: [() => reply(respond([part('response', 'Noted.')], 'complete'))] }));
    expect((await sb().post('owned-conv', 'first #mine')).status).toBe(202);
    await sb().settled('owned-conv');
    const intruder = sb().client();
    const posted = await sb().post('owned-conv', 'let me in', undefined, intruder);
    expect(posted.status).toBe(403);
    expect(posted.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'not_owner' } });
    expect((await intruder.get('/api/chat/owned-conv/events')).status).toBe(403);
    const messages = (await sb().events('owned-conv')).filter(({ event }) => event.type === 'message');
    expect(messages).toHaveLength(1);
  });

  it("refuses an approval answer naming another browser's conversation; the approval stays pending", async () => {
    sb().fake.respondWith(
      scenarioScript({
        named: [
          () => reply(respond([part('ack', 'Paying.')], 'awaiting'), toolCall('pay_invoice', { invoice: 'INV-77', amount: 770 })),
          (call) => reply(respond([part('response', `done: ${call.toolResults.at(-1)?.content ?? ''}`)], 'complete')),
        ],
      }),
    );
    await sb().post('named-conv', 'pay INV-77 #named');
    const approvalId = await approvalIn('named-conv');
    const stranger = createWebClient(sb().url);
    await stranger.session();
    expect((await stranger.get('/api/chat/stranger-conv/events', { method: 'HEAD' })).status).toBe(200);
    const refused = await sb().decide(approvalId, 'granted', { as: stranger, conversationId: 'named-conv' });
    expect(refused.status).toBe(403);
    expect(refused.body['error']).toMatchObject({ code: 'http.forbidden', details: { reason: 'not_owner' } });
    const store = createApprovalStore({ redis: sb().redis(), prefix });
    expect((await store.get(approvalId))?.status).toBe('pending');
    expect((await store.audit(approvalId)).map((entry) => entry.action)).toEqual(['requested']);

    const granted = await sb().decide(approvalId, 'granted', { conversationId: 'named-conv' });
    expect(granted.status).toBe(200);
    await sb().settled('named-conv');
  });

  it('answers 401 to every chat and approval call without a session, but not to config or session', async () => {
    const bare = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"decision":"granted","text":"x"}' };
    expect((await fetch(`${sb().url}/api/chat/any/messages`, bare)).status).toBe(401);
    expect((await fetch(`${sb().url}/api/chat/any/events`)).status).toBe(401);
    expect((await fetch(`${sb().url}/api/approvals/AAAAAAAAAAAAAAAAAAAAAA`, bare)).status).toBe(401);
    expect((await fetch(`${sb().url}/api/chat/config`)).status).toBe(200);
    expect((await fetch(`${sb().url}/api/chat/session`)).status).toBe(200);
  });
});
