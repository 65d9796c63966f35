/**
 * Who may message the bot on WhatsApp (cloud mode), end to end: signed Cloud API webhooks into
 * the running service, its messages sent to the fake Graph API, a fake model that counts its calls.
 *
 * - The example app as shipped (WhatsApp in its default mode, pairing): a stranger gets a pairing
 *   code and nothing else, no model call; approving the code on the operator API answers the held
 *   message; a wrong code is refused.
 * - An app with `senders: { mode: allowlist, allow: ['+4477009002*'] }`: numbers the pattern covers
 *   are answered; another gets one polite refusal that day and no model call, however often it writes,
 *   until an operator approves it by address.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { removeApps, writeApp } from '../../src/runtime/app/app-test-fixtures.ts';
import type { FakeGraphSend } from '../fakes/fake-graph-types.ts';
import { textWebhook } from '../fakes/whatsapp-webhook.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useWhatsAppCloudSwitchboard, type WhatsAppCloudHarness } from './cloud-harness.ts';

const APP_SECRET = 'meta-app-secret-cloud-pairing';
const CODE = /pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/;
const script = () => reply(respond([part('response', 'Happy to help with your trip.')], 'complete'));
const redisUrl = useRedis();

function textOf(send: FakeGraphSend): string {
  const body = (send.body['text'] as { body?: unknown } | undefined)?.body;
  return typeof body === 'string' ? body : '';
}
const texts = (sb: WhatsAppCloudHarness, to: string): string[] => sb.graph.sends(to).filter((send) => send.type === 'text').map(textOf);

async function approve(sb: WhatsAppCloudHarness, code: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${sb.service.url ?? ''}/admin/api/senders/approve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  return { status: response.status, json: await response.json() };
}

describe('whatsapp cloud in pairing mode (the example app as shipped)', () => {
  const sb = useWhatsAppCloudSwitchboard({ redisUrl, script, appSecret: APP_SECRET, appDir: () => process.cwd() });

  it('gives a stranger a pairing code and no model call, and answers the held message once the code is approved', async () => {
    const stranger = '+447700900301';
    expect((await sb().post(textWebhook('Flights to Paris?', { from: stranger, name: 'Grace' }))).status).toBe(200);
    await waitFor(() => texts(sb(), stranger).some((text) => CODE.test(text)), 'the pairing code');
    expect(sb().fake.messageRequests).toHaveLength(0);
    const code = CODE.exec(texts(sb(), stranger)[0] ?? '')?.[1] ?? '';

    expect(await approve(sb(), 'ZZZZ-ZZZZ')).toEqual({ status: 404, json: { status: 'unknown', triesLeft: 9 } });
    expect(await approve(sb(), code)).toEqual({ status: 200, json: { status: 'approved', channel: 'whatsapp', address: stranger, code, released: 1 } });
    await waitFor(() => texts(sb(), stranger).some((text) => text.includes('Happy to help')), 'the answer to the held message');
    expect(sb().fake.messageRequests).toHaveLength(1);
  });
});

describe('whatsapp cloud with an allowlist of patterns', () => {
  const appDir = (): string => writeApp({
    'switchboard.yaml': { app: 'allowlist', entryActor: 'main', channels: { whatsapp: { senders: { mode: 'allowlist', allow: ['+4477009002*'], refusal: 'daily' } } } },
    'actors/main.yaml': { name: 'main', system: 'Answer.' },
  });
  const sb = useWhatsAppCloudSwitchboard({ redisUrl, script, appSecret: APP_SECRET, appDir });
  afterAll(removeApps);

  it('answers the numbers the pattern covers and refuses the others once a day, with no model call', async () => {
    const listed = '+447700900201';
    const other = '+15550104001';
    await sb().post(textWebhook('Hello', { from: other }));
    await sb().post(textWebhook('Hello again', { from: other }));
    await sb().post(textWebhook('Hello', { from: listed }));
    await waitFor(() => texts(sb(), listed).some((text) => text.includes('Happy to help')), 'the listed number answered');
    await waitFor(() => texts(sb(), other).length > 0, 'the refusal');
    // Both of the other number's messages were decided before their webhooks were answered: one refusal.
    expect(texts(sb(), other)).toHaveLength(1);
    expect(texts(sb(), other)[0]).toMatch(/^Sorry, this assistant only answers people it has been told about/);
    expect(sb().fake.messageRequests).toHaveLength(1);

    // An operator lets the other number in by address: its next message is answered.
    const response = await fetch(`${sb().service.url ?? ''}/admin/api/senders/approve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'whatsapp', address: other }) });
    expect(await response.json()).toEqual({ status: 'approved', released: 0, channel: 'whatsapp', address: other });
    await sb().post(textWebhook('Now?', { from: other }));
    await waitFor(() => texts(sb(), other).some((text) => text.includes('Happy to help')), 'the approved number answered');
  });
});
