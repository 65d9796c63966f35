/**
 * The WhatsApp channel in web mode end to end on the example app: the real service with the fake
 * whatsapp-web.js client. The operator opens `/admin/whatsapp`, sees the QR code and scans it; the
 * page then says ready. A person's message is answered in WhatsApp markup; the same message seen
 * again (live, and by the catch-up after a reconnect) is answered once. A booking asks for
 * approval by text with a short code; a stranger's `APPROVE <code>` decides nothing, the person's
 * own decides and the confirmation arrives in the chat. A second process (role `worker`) on the
 * same Redis starts no second session, and its outbound jobs reach the session through the relay.
 */
import { describe, expect, it } from 'vitest';
import { createLinkStateStore } from '../../channels/whatsapp/web/link-state.ts';
import type { WebMessage } from '../../channels/whatsapp/web/web-client.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import type { FakeSend } from '../fakes/fake-wwebjs.ts';
import { fakeChat, messageFixture, webMessage, type WebMessageFixture } from '../fakes/fake-wwebjs-message.ts';
import { useRedis } from '../support/redis.ts';
import { lastUserText, part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useWhatsAppWebSwitchboard } from './web-service-harness.ts';

const BOT = '447700900999';
const sb = useWhatsAppWebSwitchboard({
  redisUrl: useRedis(),
  chromiumPath: '/usr/bin/chromium',
  // One turn at a time per process: while the first process's send is held, the other turn runs on the second.
  turnConcurrency: 1,
  script: scenarioScript({
    hello: [() => reply(respond([part('response', '## Flights\n\nThe **best** option is MW 304 & it leaves at 07:25, see [the fares](https://example.com/fares).')], 'complete'))],
    more: [() => reply(respond([part('response', 'Still here in the chat.')], 'complete'))],
    book: [
      () => reply(toolCall('book_flight', { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' })),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
  }),
});

const adminUrl = (): string => `${sb().url}/admin/whatsapp`;
const page = async (): Promise<string> => (await fetch(adminUrl())).text();

/** A one-to-one message from `number` (digits) to the bot, sent now. */
function messageFrom(number: string, body: string): WebMessage {
  const base = messageFixture('text-message');
  const chatId = `${number}@c.us`;
  const fixture: WebMessageFixture = { ...base, from: chatId, to: `${BOT}@c.us`, body, timestamp: Math.floor(Date.now() / 1000), chat: { ...base.chat, id: { _serialized: chatId }, name: number } };
  return webMessage(fixture);
}

const sentTo = (number: string): FakeSend[] => sb().wwebjs.world.sent.filter((sent) => sent.chatId === `${number}@c.us`);
async function waitForText(number: string, match: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  await waitFor(() => sentTo(number).some((sent) => match(sent.text)), what, timeoutMs);
  return sentTo(number).find((sent) => match(sent.text))?.text ?? '';
}

const modelCallsAbout = (text: string): number => sb().fake.messageRequests.filter((request) => lastUserText(request).includes(text)).length;

/** The client holding the session, once ready. */
async function readyClient(): Promise<ReturnType<ReturnType<typeof sb>['wwebjs']['latest']>> {
  await waitFor(() => sb().wwebjs.clients.length > 0 && sb().wwebjs.latest().state === 'ready', 'the WhatsApp Web session ready', 20_000);
  return sb().wwebjs.latest();
}

describe('whatsapp web: linking from the operator page', () => {
  it('shows the QR code on /admin/whatsapp (loopback, no token) while waiting, and ready once scanned', async () => {
    await waitFor(async () => (await page()).includes('Waiting for the QR code to be scanned.'), 'the page waiting for the QR code', 20_000);
    const waiting = await fetch(adminUrl());
    expect(waiting.status).toBe(200);
    const html = await waiting.text();
    expect(html).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="QR code to link WhatsApp Web">/);
    expect(html).toContain('http-equiv="refresh"');
    const client = sb().wwebjs.latest();
    expect(client.state).toBe('waiting-for-qr');
    // The code drawn is the one the client is showing now.
    const links = createLinkStateStore({ redis: sb().redis, prefix: sb().prefix });
    expect((await links.read())?.qr).toBe(client.qrCodes.at(-1));

    await client.scan();
    await waitFor(async () => (await page()).includes('Ready: messages are received and sent.'), 'the page showing ready');
    const ready = await page();
    expect(ready).toContain(`<strong>+${BOT}</strong>`);
    expect(ready).not.toContain('<img');
    expect(ready).not.toContain('http-equiv="refresh"');
    expect(sb().wwebjs.clients).toHaveLength(1);
  });
});

describe('whatsapp web: conversations', () => {
  it('answers in WhatsApp markup, and answers a message seen again (live and after a reconnect) once', async () => {
    const ada = '447700900201';
    const client = await readyClient();
    const message = messageFrom(ada, 'Flights to Paris? #hello');
    client.receive(message);
    const answer = await waitForText(ada, (text) => text.includes('MW 304'), 'the answer');
    expect(answer).toContain('*best*');
    expect(answer).toContain('https://example.com/fares');
    expect(answer).toContain('&');
    expect(answer).not.toContain('&amp;');
    expect(answer).not.toMatch(/\*\*|^#|\]\(/m);
    expect(sentTo(ada)[0]?.options.quotedMessageId).toBeUndefined();

    // The same message again, live, then read again by the catch-up after the session dropped.
    client.receive(message);
    let fetched = 0;
    const chat = fakeChat({ id: { _serialized: `${ada}@c.us` }, isGroup: false, name: 'Ada', unreadCount: 1 }, () => {
      fetched += 1;
      return [message];
    });
    sb().wwebjs.world.chats = [chat];
    try {
      client.disconnect('CONFLICT');
      await waitFor(() => sb().wwebjs.clients.length === 2 && sb().wwebjs.latest().state === 'ready', 'a new client ready from the kept session', 20_000);
      await waitFor(() => fetched > 0, 'the catch-up read the unread chat');
    } finally {
      sb().wwebjs.world.chats = [];
    }
    expect(sb().wwebjs.latest().qrCodes).toEqual([]);

    sb().wwebjs.latest().receive(messageFrom(ada, 'Still there? #more'));
    await waitForText(ada, (text) => text.includes('Still here'), 'the answer to the next message');
    expect(sentTo(ada).map((sent) => sent.text.includes('MW 304'))).toEqual([true, false]);
    expect(modelCallsAbout('Flights to Paris?')).toBe(1);
  });
});

describe('whatsapp web: approvals by short code', () => {
  it('asks by text with a code; a stranger\'s APPROVE decides nothing; the person\'s own books and confirms in the chat', async () => {
    const grace = '447700900202';
    const stranger = '447700900666';
    const client = await readyClient();
    client.receive(messageFrom(grace, 'Book it #book'));
    const request = await waitForText(grace, (text) => /APPROVE [A-Z0-9]{6}/.test(text), 'the approval request');
    const code = /APPROVE ([A-Z0-9]{6})/.exec(request)?.[1] ?? '';
    expect(request).toContain(`DENY ${code}`);
    expect(request).toMatch(/118/);
    expect(request).not.toMatch(/\*\*|\]\(/);

    const store = createApprovalStore({ redis: sb().redis, prefix: sb().prefix });
    const [pending] = await store.pendingFor({ channel: 'whatsapp', address: `+${grace}` });
    expect(pending?.shortCode).toBe(code);
    const approvalId = pending?.approvalId ?? '';

    sb().wwebjs.latest().receive(messageFrom(stranger, `APPROVE ${code}`));
    const refusal = await waitForText(stranger, (text) => text.includes(code), 'the stranger answered');
    expect(refusal).toContain(`No pending approval ${code} for you`);
    expect((await store.get(approvalId))?.status).toBe('pending');
    expect(modelCallsAbout(`APPROVE ${code}`)).toBe(0);
    expect(sentTo(grace).some((sent) => sent.text.includes('Result:'))).toBe(false);

    sb().wwebjs.latest().receive(messageFrom(grace, `APPROVE ${code}`));
    await waitForText(grace, (text) => text.startsWith(`Approved ${code}`), 'the decision answer');
    const confirmation = await waitForText(grace, (text) => text.includes('Result:'), 'the confirmation in the chat');
    expect(confirmation).toContain('confirmed');
    expect((await store.get(approvalId))?.status).toBe('granted');
    expect(modelCallsAbout(`APPROVE ${code}`)).toBe(0);
  });
});

describe('whatsapp web: a second process', () => {
  it('starts no second session, and its outbound jobs reach the session through the relay', async () => {
    await readyClient();
    const clients = sb().wwebjs.clients.length;
    await sb().startProcess('worker');
    // The first process holds its WhatsApp sends: a turn sends its answer itself, and each process
    // runs one turn at a time, so with two answers due at least one turn runs on the second
    // process, which has no client of its own and sends through the relay.
    const release = sb().hold(0);
    const people = ['447700900301', '447700900302'];
    try {
      for (const person of people) sb().wwebjs.latest().receive(messageFrom(person, 'Anyone there? #more'));
      await waitFor(() => sb().sends.some((sent) => sent.process === 1), 'a send by the second process', 20_000);
    } finally {
      release();
    }
    for (const person of people) await waitForText(person, (text) => text.includes('Still here'), `the answer to ${person}`);
    const relayed = sb().sends.filter((sent) => sent.process === 1);
    expect(relayed.length).toBeGreaterThan(0);
    const sentIds = sb().wwebjs.world.sent.map((sent) => sent.id);
    for (const sent of relayed) expect(sentIds).toContain(sent.providerMessageId);
    for (const person of people) expect(sentTo(person)).toHaveLength(1);
    expect(sb().wwebjs.clients).toHaveLength(clients);
    expect(sb().wwebjs.latest().state).toBe('ready');
  });
});
