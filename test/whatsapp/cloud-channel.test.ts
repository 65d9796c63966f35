/**
 * The WhatsApp channel in cloud mode end to end: signed Cloud API webhooks into the running
 * service, its answers sent through the real adaptor and outbound queue to a local fake of the
 * Graph API.
 *
 * On the example app: a person messages the business number and gets an answer in WhatsApp markup;
 * the same webhook redelivered still gets one answer; a forged signature is a 403 and starts
 * nothing; a booking brings reply buttons (Approve, Deny), a stranger's tap is refused and audited,
 * the person's own tap books and the confirmation arrives, a second tap is told it was decided;
 * delivery statuses posted out of order never go backwards; an answer to a message delivered more
 * than 24 hours late (the window closed) fails for good, naming the template setting, since the
 * example app configures none.
 *
 * On a copy of the example app with `channels.whatsapp.templates` set and an approver reachable on
 * WhatsApp who has not written in over 24 hours: the approval request goes to them as the approval
 * template (with quick replies, which decide), and a `notify` to another such person goes as the
 * notice template; never as free text.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createCloudStatuses } from '../../channels/whatsapp/cloud/statuses.ts';
import { createDeliveryFailures } from '../../queues/delivery-failures.ts';
import { removeApps, writeApp } from '../../src/runtime/app/app-test-fixtures.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import type { FakeGraphSend } from '../fakes/fake-graph-types.ts';
import { buttonReplyWebhook, newWamid, quickReplyWebhook, statusWebhook, textWebhook } from '../fakes/whatsapp-webhook.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useWhatsAppCloudSwitchboard, type WhatsAppCloudHarness } from './cloud-harness.ts';

const APP_SECRET = 'meta-app-secret-cloud-e2e';
const DAY_MS = 24 * 3_600_000;
const booking = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' };

const script = scenarioScript({
  hello: [() => reply(respond([part('response', '## Flights\n\nThe **best** option is MW 304 & it leaves at 07:25, see [the fares](https://example.com/fares).')], 'complete'))],
  more: [() => reply(respond([part('response', 'Still here.')], 'complete'))],
  book: [
    () => reply(toolCall('book_flight', booking)),
    (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
  ],
  tell: [
    () => reply(toolCall('notify', { person: 'lin', text: 'Your flight MW 304 now leaves at 07:40.\nSee you at the gate.' })),
    (call) => reply(respond([part('response', `Told: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
  ],
});

const redisUrl = useRedis();

/** Our record of when `contact` last wrote (the 24-hour window), as the channel keeps it. */
const windowKey = (sb: WhatsAppCloudHarness, contact: string): string => `${sb.prefix}:whatsapp:${sb.graph.phoneNumberId}:window:${contact}`;

/** The text of a sent text message, `''` for any other. */
function textOf(send: FakeGraphSend | undefined): string {
  const body = (send?.body['text'] as { body?: unknown } | undefined)?.body;
  return typeof body === 'string' ? body : '';
}
const texts = (sb: WhatsAppCloudHarness, to: string): string[] => sb.graph.sends(to).filter((send) => send.type === 'text').map(textOf);

/** The `interactive` object of a reply-button message. */
interface Interactive {
  readonly body?: { readonly text?: string };
  readonly action?: { readonly buttons?: readonly { readonly reply: { readonly id: string; readonly title: string } }[] };
}
function interactive(send: FakeGraphSend): Interactive {
  const value = send.body['interactive'];
  return typeof value === 'object' && value !== null ? value : {};
}

/** Waits for the reply-button message sent to `to`; it and its buttons. */
async function approvalButtons(sb: WhatsAppCloudHarness, to: string): Promise<{ card: FakeGraphSend; approve: string; deny: string; approvalId: string }> {
  await waitFor(() => sb.graph.sends(to).some((send) => send.type === 'interactive'), `the approval buttons to ${to}`);
  const card = sb.graph.sends(to).find((send) => send.type === 'interactive');
  if (card === undefined) throw new Error('no card');
  const buttons = interactive(card).action?.buttons ?? [];
  const approve = buttons.find((button) => button.reply.title === 'Approve')?.reply.id ?? '';
  const deny = buttons.find((button) => button.reply.title === 'Deny')?.reply.id ?? '';
  return { card, approve, deny, approvalId: /^apr:([^:]+):/.exec(approve)?.[1] ?? '' };
}

describe('whatsapp cloud on the example app', () => {
  const sb = useWhatsAppCloudSwitchboard({ redisUrl, script, appSecret: APP_SECRET });

  it('answers a signed message in WhatsApp markup; the same webhook redelivered answers once; a forged signature is refused', async () => {
    const from = '+447700900101';
    const body = textWebhook('Flights to Paris? #hello', { from, name: 'Ada' });
    expect((await sb().post(body)).status).toBe(200);
    expect((await sb().post(body)).status).toBe(200);
    await waitFor(() => texts(sb(), from).length > 0, 'the answer');

    const forged = await sb().post(textWebhook('Forged #hello', { from }), { signature: `sha256=${'ab'.repeat(32)}`, wrote: false });
    expect(forged.status).toBe(403);
    const unsigned = await sb().post(textWebhook('Unsigned #hello', { from }), { signature: null, wrote: false });
    expect(unsigned.status).toBe(403);

    // A later message from the same number: once its answer is there, nothing else can still come.
    await sb().post(textWebhook('Still there? #more', { from }));
    await waitFor(() => texts(sb(), from).some((text) => text.includes('Still here')), 'the marker answer');
    const answers = texts(sb(), from);
    expect(answers).toHaveLength(2);
    const answer = answers[0] ?? '';
    expect(answer).toContain('*best*');
    expect(answer).not.toContain('**');
    expect(answer).not.toContain('##');
    expect(answer).not.toContain('](');
    expect(answer).toContain('https://example.com/fares');
    expect(answer).toContain('&');
    expect(answer).not.toContain('&amp;');
    expect(sb().graph.sends(from).every((send) => send.type === 'text')).toBe(true);
    expect(await sb().redis.exists(windowKey(sb(), from))).toBe(1);
    expect(sb().fake.messageRequests.filter((request) => JSON.stringify(request.body.messages).includes('Forged') || JSON.stringify(request.body.messages).includes('Unsigned'))).toHaveLength(0);
  });

  it('a booking brings reply buttons; a stranger is refused and audited; the own tap books; a second tap is told it was decided', async () => {
    const from = '+447700900102';
    const stranger = '+447700900666';
    await sb().post(textWebhook('Book MW 304 #book', { from }));
    const { card, approve, deny, approvalId } = await approvalButtons(sb(), from);
    expect(interactive(card).body?.text).toMatch(/MW ?304|book/i);
    expect(approve).toMatch(/^apr:.+:a/);
    expect(deny).toMatch(/^apr:.+:d/);

    await sb().post(buttonReplyWebhook({ id: approve, title: 'Approve' }, { from: stranger, contextId: card.id }));
    await waitFor(() => texts(sb(), stranger).some((text) => text.includes('not an approver')), 'the stranger told');
    const store = createApprovalStore({ redis: sb().redis, prefix: sb().prefix });
    expect((await store.audit(approvalId)).some((entry) => entry.action === 'refused' && entry.by?.address === stranger)).toBe(true);
    expect((await store.get(approvalId))?.status).toBe('pending');
    expect(texts(sb(), from).some((text) => text.includes('Result:'))).toBe(false);

    await sb().post(buttonReplyWebhook({ id: approve, title: 'Approve' }, { from, contextId: card.id }));
    await waitFor(() => texts(sb(), from).some((text) => text.includes('Result:') && /SB[A-Z0-9]{6}/.test(text)), 'the confirmation');
    expect((await store.get(approvalId))?.status).toBe('granted');

    await sb().post(buttonReplyWebhook({ id: deny, title: 'Deny' }, { from, contextId: card.id }));
    await waitFor(() => texts(sb(), from).some((text) => /already approved/.test(text)), 'the second tap told it was decided');
    expect((await store.get(approvalId))?.status).toBe('granted');
    expect(texts(sb(), from).filter((text) => text.includes('Result:'))).toHaveLength(1);
  });

  it('delivery statuses posted out of order never go backwards', async () => {
    const from = '+447700900103';
    await sb().post(textWebhook('Status check #more', { from }));
    await waitFor(() => sb().graph.sends(from).length === 1, 'the answer');
    const wamid = sb().graph.sends(from)[0]?.id ?? '';
    const statuses = createCloudStatuses({ redis: sb().redis, prefix: `${sb().prefix}:whatsapp:cloud` });
    const post = async (status: 'sent' | 'delivered' | 'read') => {
      expect((await sb().post(statusWebhook({ wamid, status, recipient: from }))).status).toBe(200);
    };
    await post('read');
    await post('delivered');
    await post('sent');
    expect((await statuses.get(wamid))?.status).toBe('read');
    expect((await statuses.get(wamid))?.recipient).toBe(from);
  });

  it('without templates configured, an answer outside the 24-hour window fails for good naming the setting, and no free text is sent', async () => {
    const from = '+447700900104';
    const wrote = new Date(Date.now() - DAY_MS - 2 * 3_600_000);
    // Meta redelivers webhooks for days: this message was written 26 hours ago and reaches us only now.
    const answer = await sb().post(textWebhook('Late hello #more', { from, id: newWamid(), timestamp: Math.floor(wrote.getTime() / 1000) }), { wrote });
    expect(answer.status).toBe(200);
    const failures = createDeliveryFailures({ redis: sb().redis, prefix: sb().prefix });
    await waitFor(async () => (await failures.list({ channel: 'whatsapp' })).some((failure) => failure.destination.address === from), 'the answer failed for good');
    const failure = (await failures.list({ channel: 'whatsapp' })).find((entry) => entry.destination.address === from);
    expect(failure?.reason).toBe('permanent');
    expect(failure?.message).toContain('channels.whatsapp.templates.notice');
    expect(failure?.providerCode).toBe('131047');
    expect(sb().graph.attempts().filter((attempt) => attempt.to !== undefined && attempt.to.replace(/^\+/, '') === from.slice(1))).toHaveLength(0);
    expect(await sb().redis.exists(windowKey(sb(), from))).toBe(0);
  });
});

describe('whatsapp cloud with templates, to people who have not written in 24 hours', () => {
  const GRACE = '+447700900201';
  const LIN = '+447700900202';
  const repoFile = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
  const appDir = (): string => {
    const ledger = `appBookingLedger(new URL('..', import.meta.url))`;
    const importLedger = `import { appBookingLedger } from ${JSON.stringify(repoFile('tools/_bookings.ts'))};`;
    return writeApp({
      'switchboard.yaml': {
        app: 'whatsapp-templates',
        entryActor: 'concierge',
        // The requesters are numbers nobody configured: anyone may write here (the default is pairing).
        channels: { whatsapp: { actor: 'concierge', senders: 'open', templates: { approval: { name: 'approval_request', language: 'en' }, notice: { name: 'assistant_notice', language: 'en_GB' } } } },
        people: [
          { id: 'grace', name: 'Grace Hopper', addresses: { whatsapp: [GRACE] } },
          { id: 'lin', name: 'Lin Chen', addresses: { whatsapp: [LIN] } },
        ],
        approvals: [{ tool: 'book_flight', approvers: ['grace'], allowRequester: false, expiresInMinutes: 30 }],
      },
      'actors/concierge.yaml': { name: 'concierge', system: 'You are a travel concierge.', tools: ['search_flights', 'book_flight', 'format_itinerary', 'upcoming_trips', 'notify'] },
      'tools/search_flights.ts': `export { default } from ${JSON.stringify(repoFile('tools/search_flights.ts'))};\n`,
      'tools/format_itinerary.ts': `export { default } from ${JSON.stringify(repoFile('tools/format_itinerary.ts'))};\n`,
      'tools/book_flight.ts': `${importLedger}\nimport { createBookFlightTool } from ${JSON.stringify(repoFile('tools/book_flight.ts'))};\nexport default createBookFlightTool(${ledger});\n`,
      'tools/upcoming_trips.ts': `${importLedger}\nimport { createUpcomingTripsTool } from ${JSON.stringify(repoFile('tools/upcoming_trips.ts'))};\nexport default createUpcomingTripsTool({ ledger: ${ledger} });\n`,
    });
  };
  const sb = useWhatsAppCloudSwitchboard({ redisUrl, script, appSecret: APP_SECRET, appDir });
  afterAll(() => {
    removeApps();
  });

  const template = (send: FakeGraphSend | undefined) =>
    (send?.body['template'] ?? {}) as { name?: string; language?: { code?: string }; components?: { type: string; sub_type?: string; index?: string | number; parameters: { type: string; text?: string; payload?: string }[] }[] };

  it('the approval request goes to the approver as the approval template; its quick reply decides', async () => {
    const requester = '+447700900203';
    sb().graph.contactWrote(GRACE, new Date(Date.now() - 3 * DAY_MS));
    expect(await sb().redis.exists(windowKey(sb(), GRACE))).toBe(0);
    await sb().post(textWebhook('Book MW 304 #book', { from: requester }));
    await waitFor(() => sb().graph.sends(GRACE).length > 0, 'the request to the approver');
    const sent = sb().graph.sends(GRACE)[0];
    expect(sent?.type).toBe('template');
    const { name, language, components = [] } = template(sent);
    expect(name).toBe('approval_request');
    expect(language?.code).toBe('en');
    const bodyText = components.find((component) => component.type === 'body')?.parameters[0]?.text ?? '';
    expect(bodyText).toMatch(/MW ?304|book/i);
    expect(bodyText).not.toMatch(/\n/);
    const payloads = components.filter((component) => component.type === 'button').flatMap((component) => component.parameters.map((parameter) => parameter.payload ?? ''));
    expect(payloads).toHaveLength(2);
    const approve = payloads.find((payload) => /^apr:[^:]+:a/.test(payload)) ?? '';
    const approvalId = /^apr:([^:]+):/.exec(approve)?.[1] ?? '';
    expect(sb().graph.attempts().filter((attempt) => attempt.to?.replace(/^\+/, '') === GRACE.slice(1) && attempt.status !== 200)).toHaveLength(0);

    await sb().post(quickReplyWebhook({ payload: approve, text: 'Approve' }, { from: GRACE, contextId: sent?.id ?? null }));
    await waitFor(() => texts(sb(), requester).some((text) => text.includes('Result:') && /SB[A-Z0-9]{6}/.test(text)), 'the confirmation to the requester');
    const store = createApprovalStore({ redis: sb().redis, prefix: sb().prefix });
    const record = await store.get(approvalId);
    expect(record?.status).toBe('granted');
    expect(record?.decidedBy?.address).toBe(GRACE);
  });

  it('a notify to a person who has not written in 24 hours goes as the notice template', async () => {
    const requester = '+447700900204';
    sb().graph.contactWrote(LIN, new Date(Date.now() - 2 * DAY_MS));
    expect(await sb().redis.exists(windowKey(sb(), LIN))).toBe(0);
    await sb().post(textWebhook('Tell Lin about the delay #tell', { from: requester }));
    await waitFor(() => texts(sb(), requester).some((text) => text.includes('Told:')), 'the answer to the requester');
    await waitFor(() => sb().graph.sends(LIN).length > 0, 'the notice to Lin');
    const sends = sb().graph.sends(LIN);
    expect(sends.map((send) => send.type)).toEqual(['template']);
    const { name, language, components = [] } = template(sends[0]);
    expect(name).toBe('assistant_notice');
    expect(language?.code).toBe('en_GB');
    expect(components.find((component) => component.type === 'body')?.parameters[0]?.text).toBe('Your flight MW 304 now leaves at 07:40. · See you at the gate.');
    expect(components.some((component) => component.type === 'button')).toBe(false);
    expect(sb().graph.attempts().filter((attempt) => attempt.to?.replace(/^\+/, '') === LIN.slice(1))).toHaveLength(1);
  });
});
