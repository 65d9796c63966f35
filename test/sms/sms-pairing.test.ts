/**
 * Who may text the bot, end to end on the example app as shipped (SMS in its default mode,
 * pairing): signed Twilio webhooks into the running service, the real twilio SDK sending to the
 * fake Twilio REST API, a fake model that counts its calls.
 *
 * - A stranger's text gets a pairing code and nothing else: no model call, their messages held.
 * - `switchboard senders approve <code>` (the CLI's own function) lets them in and their held
 *   messages are answered; the approval says who gave it.
 * - Revoked from `/admin`, they are a stranger again (a new code, no model call); blocked, they get
 *   nothing at all.
 * - `APPROVE <code>` from a number nobody knows is still a decision (answered by the approvals, not
 *   held); the web chat stays open; `/metrics` and the event log show each outcome.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsChannel } from '../../channels/sms/index.ts';
import { webChannel } from '../../channels/web/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { runSendersCommand, sendersCommandDeps } from '../../service/cli/senders-command.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { inboundSmsParams, postTwilioWebhook } from '../fakes/twilio-webhook.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { createWebClient } from '../web/web-client.ts';

const ACCOUNT = `AC${'4'.repeat(32)}`;
const TOKEN = 'sms-pairing-auth-token';
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bot.example.com';
const CODE = /pairing code is ([A-Z0-9]{4}-[A-Z0-9]{4})/;

const redisUrl = useRedis();
const prefix = uniquePrefix('sms-pairing');
let fake: FakeAnthropic;
let twilio: FakeTwilio;
let service: Service;
let redis: Redis;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  fake.respondWith(() => reply(respond([part('response', 'Happy to help with your trip.')], 'complete')));
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  redis = new Redis(redisUrl());
  const env = loadEnv({
    ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', PUBLIC_URL,
    TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: twilio.url,
  }, { appDir: process.cwd() });
  service = await startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [webChannel, smsChannel] });
});

afterAll(async () => {
  await service.close();
  await redis.quit();
  await twilio.close();
  await fake.close();
});

let counter = 0;
async function text(from: string, body: string): Promise<void> {
  counter += 1;
  const params = inboundSmsParams({ from, to: BOT, body, accountSid: ACCOUNT, messageSid: `SM${counter.toString(16).padStart(32, 'a')}` });
  const answer = await postTwilioWebhook({ url: `${service.url ?? ''}/webhooks/twilio/sms`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/sms`, authToken: TOKEN, params });
  expect(answer.status).toBe(200);
}

const bodiesTo = (number: string): string[] => twilio.messages(number).map((message) => message.body);
const modelCalls = (): number => fake.messageRequests.length;
const outcomes = async (from: string): Promise<unknown[]> =>
  (await createEventLog({ redis, prefix }).read(sessionIdOf('default', 'sms', from))).filter((entry) => entry.type === 'sender_policy').map((entry) => entry.data['outcome']);

async function admin(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${service.url ?? ''}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('sms in pairing mode (the example app as shipped)', () => {
  const stranger = '+15550103001';
  let code = '';

  it('gives a stranger a pairing code and nothing else: no model call, the messages held', async () => {
    const before = modelCalls();
    await text(stranger, 'Flights to Paris next week?');
    await waitFor(() => bodiesTo(stranger).some((body) => CODE.test(body)), 'the pairing code');
    code = CODE.exec(bodiesTo(stranger)[0] ?? '')?.[1] ?? '';
    await text(stranger, 'Hello? Anyone there?');
    await waitFor(async () => (await outcomes(stranger)).length === 2, 'the second message held');
    expect(await outcomes(stranger)).toEqual(['pairing-code-sent', 'held']);
    expect(bodiesTo(stranger)).toHaveLength(1);
    expect(modelCalls()).toBe(before);
    const metrics = await (await fetch(`${service.url ?? ''}/metrics`)).text();
    expect(metrics).toContain('switchboard_sender_policy_total{channel="sms",outcome="pairing-code-sent"} 1');
    expect(metrics).toContain('switchboard_sender_policy_total{channel="sms",outcome="held"} 1');
  });

  it('answers the held messages once the code is approved with `switchboard senders approve`', async () => {
    const before = modelCalls();
    let printed = '';
    const deps = sendersCommandDeps({ redis, prefix, approver: 'cli ops' });
    try {
      expect(await runSendersCommand(['approve', code.toLowerCase()], deps, { write: (chunk: string) => (printed += chunk) })).toBe(0);
      expect(printed).toBe(`Approved sms ${stranger} (code ${code}); 2 held message(s) passed on to be answered.\n`);
      printed = '';
      expect(await runSendersCommand(['list'], deps, { write: (chunk: string) => (printed += chunk) })).toBe(0);
      expect(printed).toMatch(new RegExp(`approved\\s+sms\\s+\\${stranger}\\s+cli ops`));
    } finally {
      await deps.close();
    }
    await waitFor(() => bodiesTo(stranger).some((body) => body.includes('Happy to help')), 'the answer to the held messages');
    expect(modelCalls()).toBeGreaterThan(before);
    const answered = modelCalls();
    await text(stranger, 'And hotels?');
    await waitFor(() => modelCalls() > answered, 'the next message answered at once');
  });

  it('holds a revoked sender again (a new code, no model call) and gives a blocked one nothing', async () => {
    expect(await admin('/admin/api/senders/revoke', { channel: 'sms', address: stranger })).toEqual({ status: 200, json: { revoked: true } });
    await waitFor(() => fake.messageRequests.length > 0 && bodiesTo(stranger).filter((body) => body.includes('Happy to help')).length >= 2, 'the earlier answers delivered');
    const before = modelCalls();
    const codes = bodiesTo(stranger).filter((body) => CODE.test(body)).length;
    await text(stranger, 'Still there?');
    await waitFor(() => bodiesTo(stranger).filter((body) => CODE.test(body)).length === codes + 1, 'a new pairing code');

    expect(await admin('/admin/api/senders/block', { channel: 'sms', address: stranger })).toEqual({ status: 200, json: { blocked: true, dropped: 1 } });
    const sent = bodiesTo(stranger).length;
    await text(stranger, 'Let me in!');
    await waitFor(async () => (await outcomes(stranger)).at(-1) === 'blocked', 'the blocked outcome');
    expect(bodiesTo(stranger)).toHaveLength(sent);
    expect(modelCalls()).toBe(before);
    const page = await (await fetch(`${service.url ?? ''}/admin`)).text();
    expect(page).toContain('<h1>Senders</h1>');
    expect(page).toContain(`<td>blocked</td><td>sms</td><td>${stranger}</td><td>admin page</td>`);
  });

  it('refuses a wrong code from the admin page, naming the tries left', async () => {
    expect(await admin('/admin/api/senders/approve', { code: 'AAAA-AAAA' })).toEqual({ status: 404, json: { status: 'unknown', triesLeft: 9 } });
  });

  it('routes `APPROVE <code>` from an unknown number to the approvals, never to pairing', async () => {
    const unknown = '+15550103002';
    await text(unknown, 'APPROVE K7QX3M');
    await waitFor(() => bodiesTo(unknown).length > 0, 'the decision answer');
    expect(bodiesTo(unknown).join('\n')).not.toMatch(CODE);
    expect(await outcomes(unknown)).toEqual([]);
  });

  it('keeps the web chat open', async () => {
    const before = modelCalls();
    const browser = createWebClient(service.url ?? '');
    await browser.session();
    expect((await browser.post('/api/chat/c-open/messages', { text: 'Hello from the web', id: 'm-open-1' })).status).toBe(202);
    await waitFor(() => modelCalls() > before, 'the web answer');
  });
});
