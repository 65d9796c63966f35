/**
 * The SMS channel end to end on the example app: signed Twilio webhooks into the running service
 * (behind a proxy: PUBLIC_URL differs from the local URL), the real twilio SDK sending to a local
 * fake of Twilio's REST API. A person texts, gets an SMS-rendered answer, asks for a booking, gets
 * the approval text and replies APPROVE with the code; then every edge: forged, missing and
 * wrong-URL signatures, a redelivered webhook, STOP / HELP / START, MMS in and out, status
 * callbacks out of order, a 429 with Retry-After, bare APPROVE with one and two pending, a number
 * that is not an approver, and DENY.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsChannel } from '../../channels/sms/index.ts';
import { createSmsStore } from '../../channels/sms/sms-store.ts';
import { createDeliveryFailures } from '../../queues/delivery-failures.ts';
import { webChannel } from '../../channels/web/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { inboundSmsParams, postTwilioWebhook } from '../fakes/twilio-webhook.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { lastUserText, part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { Redis } from 'ioredis';
import { rmSync } from 'node:fs';
import { openExampleApp } from '../support/open-example-app.ts';

const ACCOUNT = `AC${'2'.repeat(32)}`;
const TOKEN = 'sms-test-auth-token';
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bot.example.com';
const flight = (flightNumber: string, totalCost: number) => ({ flightNumber, date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost, currency: 'GBP' });

const redisUrl = useRedis();
// Strangers text this bot: the copy of the example app lets anyone write on SMS (its default is pairing).
const appDir = openExampleApp('switchboard-sms-', ['sms']);
const prefix = uniquePrefix('sms');
let fake: FakeAnthropic;
let twilio: FakeTwilio;
let service: Service;
let redis: Redis;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  redis = new Redis(redisUrl());
  fake.respondWith(scenarioScript({
    hello: [() => reply(respond([part('response', '## Flights\n\nThe **best** option is MW 304 at 07:25, see [the fares](https://example.com/fares).')], 'complete'))],
    book: [
      () => reply(toolCall('book_flight', flight('MW 304', 118))),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
    twice: [
      () => reply(toolCall('book_flight', flight('MW 304', 118)), toolCall('book_flight', flight('AU 1021', 94))),
      (call) => reply(respond([part('response', `Results: ${call.toolResults.map((result) => (result.is_error === true ? 'refused' : 'booked')).join(', ')}`)], 'complete')),
    ],
    photo: [(call) => {
      const artifact = /artifact ([A-Za-z0-9_-]{22})/.exec(call.texts.at(-1) ?? '');
      return reply(respond([part('response', 'Here it is back.'), { data: { artifactId: artifact?.[1] ?? '', name: 'back.png', mimeType: 'image/png' }, metadata: { partType: 'artifact' } }], 'complete'));
    }],
  }));
  const env = loadEnv({
    ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', PUBLIC_URL,
    TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: twilio.url,
  }, { appDir });
  service = await startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [webChannel, smsChannel] });
});

afterAll(async () => {
  await service.close();
  await redis.quit();
  await twilio.close();
  await fake.close();
  rmSync(appDir, { recursive: true, force: true });
});

let counter = 0;
/** Texts the bot from `from`, signed over the public URL as Twilio would; resolves to the HTTP answer. */
async function text(from: string, body: string, extra: { signedUrl?: string; signature?: string | null; idempotencyToken?: string; media?: { url: string; contentType: string }[] } = {}) {
  counter += 1;
  const params = inboundSmsParams({ from, to: from.startsWith('whatsapp:') ? `whatsapp:${BOT}` : BOT, body, accountSid: ACCOUNT, messageSid: `SM${counter.toString(16).padStart(32, '0')}`, ...(extra.media === undefined ? {} : { media: extra.media }) });
  return postTwilioWebhook({
    url: `${service.url ?? ''}/webhooks/twilio/sms`,
    signedUrl: extra.signedUrl ?? `${PUBLIC_URL}/webhooks/twilio/sms`,
    authToken: TOKEN,
    params,
    ...(extra.signature === undefined ? {} : { signature: extra.signature }),
    ...(extra.idempotencyToken === undefined ? {} : { headers: { idempotencyToken: extra.idempotencyToken } }),
  });
}

const bodiesTo = (number: string): string[] => twilio.messages(number).map((message) => message.body);
async function waitForText(number: string, match: (body: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  await waitFor(() => bodiesTo(number).some(match), what, timeoutMs);
  return bodiesTo(number).find(match) ?? '';
}

describe('sms: a conversation with an approval by code', () => {
  it('answers in plain SMS text, asks for approval with a code, and confirms after APPROVE <code>', async () => {
    const ada = '+15550101001';
    const first = await text(ada, 'Flights to Paris? #hello');
    expect(first.status).toBe(200);
    expect(first.body).toContain('<Response/>');
    const answer = await waitForText(ada, (body) => body.includes('MW 304'), 'the answer');
    expect(answer).toContain('the fares: https://example.com/fares');
    expect(answer).not.toMatch(/\*\*|^#|\]\(/m);

    await text(ada, 'Book it #book');
    const request = await waitForText(ada, (body) => /APPROVE [A-Z0-9]{6}/.test(body), 'the approval text');
    const code = /APPROVE ([A-Z0-9]{6})/.exec(request)?.[1] ?? '';
    expect(request).toContain(`DENY ${code}`);
    expect(request).toMatch(/118/);
    await text(ada, `approve ${code.toLowerCase()}`);
    await waitForText(ada, (body) => body.startsWith(`Approved ${code}`), 'the decision answer');
    const confirmation = await waitForText(ada, (body) => body.includes('Result:'), 'the confirmation');
    expect(confirmation).toContain('confirmed');
  });

  it('refuses a number that is not an approver, answers a bare APPROVE with one pending, and DENY refuses', async () => {
    const bob = '+15550101002';
    await text(bob, 'Book it #book');
    const request = await waitForText(bob, (body) => /APPROVE [A-Z0-9]{6}/.test(body), 'the approval text');
    const code = /APPROVE ([A-Z0-9]{6})/.exec(request)?.[1] ?? '';
    await text('+15550109999', `APPROVE ${code}`);
    await waitForText('+15550109999', (body) => body.includes(`No pending approval ${code} for you`), 'the stranger was refused');
    await text(bob, 'APPROVE');
    await waitForText(bob, (body) => body.startsWith(`Approved ${code}`), 'a bare APPROVE with one pending decided');

    const carol = '+15550101003';
    await text(carol, 'Book it #book');
    const second = await waitForText(carol, (body) => /DENY [A-Z0-9]{6}/.test(body), 'the second approval text');
    const denyCode = /DENY ([A-Z0-9]{6})/.exec(second)?.[1] ?? '';
    await text(carol, `DENY ${denyCode}`);
    await waitForText(carol, (body) => body.startsWith(`Denied ${denyCode}`), 'the denial');
  });

  it('with two pending, a bare APPROVE lists the codes and decides nothing', async () => {
    const dan = '+15550101004';
    await text(dan, 'Book both #twice');
    await waitFor(() => bodiesTo(dan).filter((body) => /APPROVE [A-Z0-9]{6}/.test(body)).length >= 2, 'two approval texts');
    const codes = bodiesTo(dan).flatMap((body) => /APPROVE ([A-Z0-9]{6})/.exec(body)?.[1] ?? []);
    await text(dan, 'approve');
    const listing = await waitForText(dan, (body) => body.startsWith('You have 2 pending approvals'), 'the list of pending codes');
    for (const code of codes) expect(listing).toContain(code);
    await text(dan, `APPROVE ${codes[0] ?? ''}`);
    await text(dan, `DENY ${codes[1] ?? ''}`);
    await waitForText(dan, (body) => body.includes('Results: booked, refused'), 'the turn resumed with one booked and one refused');
  });
});

describe('sms: the webhook and the carrier rules', () => {
  it('refuses forged, missing and wrong-URL signatures with nothing enqueued, and drops a redelivery', async () => {
    const eve = '+15550102001';
    const calls = fake.messageRequests.length;
    expect((await text(eve, 'hello #hello', { signature: 'c2lnbmF0dXJl' })).status).toBe(403);
    expect((await text(eve, 'hello #hello', { signature: null })).status).toBe(403);
    expect((await text(eve, 'hello #hello', { signedUrl: `${service.url ?? ''}/webhooks/twilio/sms` })).status).toBe(403);
    expect(fake.messageRequests.length).toBe(calls);

    const frank = '+15550102002';
    expect((await text(frank, 'once only #hello', { idempotencyToken: 'idem-frank' })).status).toBe(200);
    expect((await text(frank, 'once only #hello', { idempotencyToken: 'idem-frank' })).status).toBe(200);
    await waitForText(frank, (body) => body.includes('MW 304'), 'the answer');
    await text(frank, 'again #hello');
    await waitFor(() => bodiesTo(frank).length >= 2, 'the second answer');
    expect(fake.messageRequests.filter((request) => lastUserText(request).includes('once only'))).toHaveLength(1);
  });

  it('STOP opts out (nothing reaches the actor or the number), HELP answers at once, START opts back in', async () => {
    const gina = '+15550103001';
    const stop = await text(gina, 'Stop');
    expect(stop.body).toContain('<Response/>');
    const help = await text(gina, 'HELP');
    expect(help.body).toContain('Reply STOP');
    expect(fake.messageRequests.some((request) => /^(Stop|HELP)$/.test(lastUserText(request)))).toBe(false);
    await text(gina, 'Still there? #hello');
    await waitFor(() => fake.messageRequests.some((request) => lastUserText(request).startsWith('Still there?')), 'the actor got the message');
    const store = createSmsStore({ redis, prefix: `${prefix}:sms:${ACCOUNT}` });
    expect(await store.isOptedOut(gina)).toBe(true);
    const failures = createDeliveryFailures({ redis, prefix });
    await waitFor(async () => (await failures.list({ channel: 'sms' })).some((failure) => failure.destination.address === gina), 'the answer to the opted-out number failed for good');
    const failure = (await failures.list({ channel: 'sms' })).find((entry) => entry.destination.address === gina);
    expect(failure?.providerCode).toBe('21610');
    expect(bodiesTo(gina)).toEqual([]);
    await text(gina, 'START');
    await text(gina, 'Back again #hello');
    await waitForText(gina, (body) => body.includes('MW 304'), 'answers resume after START');
  });

  it('keeps MMS media as an artifact and sends it back as media behind a signed link', async () => {
    const hana = '+15550104001';
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const media = twilio.addMedia(png, 'image/png');
    await text(hana, 'my photo #photo', { media: [{ url: media, contentType: 'image/png' }] });
    await waitFor(() => twilio.messages(hana).some((message) => message.mediaUrls.length > 0), 'the MMS answer');
    const sent = twilio.messages(hana).find((message) => message.mediaUrls.length > 0);
    const link = new URL(sent?.mediaUrls[0] ?? '');
    expect(link.origin).toBe(PUBLIC_URL);
    const fetched = await fetch(`${service.url ?? ''}${link.pathname}${link.search}`);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(png)).toBe(true);
    expect((await fetch(`${service.url ?? ''}${link.pathname}?expires=${link.searchParams.get('expires') ?? ''}&sig=forged`)).status).toBe(403);
  });

  it('applies status callbacks forward only, and waits out a 429 with Retry-After before sending once', async () => {
    const ivan = '+15550105001';
    twilio.failNext(1, 429, { code: 20429, retryAfterSeconds: 1 });
    await text(ivan, 'hello #hello');
    await waitFor(() => twilio.messages(ivan).length === 1, 'the answer after the 429');
    const attempts = twilio.attempts().filter((attempt) => attempt.to === ivan);
    const throttled = attempts.findIndex((attempt) => attempt.status === 429);
    expect(throttled).toBeGreaterThanOrEqual(0);
    expect((attempts[throttled + 1]?.at ?? 0) - (attempts[throttled]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    const metrics = await (await fetch(`${service.url ?? ''}/metrics`)).text();
    expect(metrics).toMatch(/switchboard_deliveries_total\{channel="sms",outcome="retry"\} [1-9]/);
    expect(metrics).toMatch(/switchboard_deliveries_total\{channel="sms",outcome="sent"\} [1-9]/);
    const sid = twilio.messages(ivan)[0]?.sid ?? '';
    await twilio.deliverStatuses(sid, ['queued', 'sent', 'delivered'], { order: 'reversed', url: `${service.url ?? ''}/webhooks/twilio/status`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/status` });
    const store = createSmsStore({ redis, prefix: `${prefix}:sms:${ACCOUNT}` });
    expect((await store.status(sid))?.status).toBe('delivered');
  });

  it('serves Twilio WhatsApp addresses: the answer goes to whatsapp:+… in WhatsApp markup, from our WhatsApp sender', async () => {
    const wa = 'whatsapp:+15550106001';
    expect((await text(wa, 'Flights? #hello')).status).toBe(200);
    await waitFor(() => twilio.messages(wa).length > 0, 'the WhatsApp answer');
    const [message] = twilio.messages(wa);
    expect(message?.from).toBe(`whatsapp:${BOT}`);
    expect(message?.body).toContain('*best*');
    expect(message?.body).not.toContain('**');
  });
});
