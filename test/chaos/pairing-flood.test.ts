/**
 * A flood of strangers over SMS against the example app as shipped (SMS in pairing mode): 1,000
 * signed webhooks from 200 numbers nobody configured, 25 at a time, into the running service with
 * the fake Twilio REST API and a fake model that counts its calls.
 *
 * Before any pairing: not one model call, exactly one pairing code per number (200), every other
 * message held. Then the per-sender cap: 20 of the numbers keep writing, once an hour for four more
 * hours (the store's clock moved on, each code expired): each gets three codes that day and no
 * more. The figures are printed.
 *
 * Codes are counted where the service decides and keeps them (the sender store, `/metrics`): their
 * SMS then leave through the outbound queue at Twilio's rate (one a second from a long code), which
 * is the provider's pace, not the policy's.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsChannel } from '../../channels/sms/index.ts';
import { webChannel } from '../../channels/web/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { inboundSmsParams, postTwilioWebhook } from '../fakes/twilio-webhook.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';

const ACCOUNT = `AC${'5'.repeat(32)}`;
const TOKEN = 'pairing-flood-auth-token';
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bot.example.com';
const SENDERS = 200;
const MESSAGES_EACH = 5;
const CONCURRENCY = 25;
const HOUR_MS = 3_600_000;
/** The day the store sees (its clock is moved by whole hours; 09:00 UTC keeps it within one day). */
const BASE = Date.parse('2026-12-01T09:00:00Z');

const redisUrl = useRedis();
let fake: FakeAnthropic;
let twilio: FakeTwilio;
let service: Service;
let redis: Redis;
const prefix = uniquePrefix('pairing-flood');
let hoursLater = 0;
const startedAt = Date.now();

beforeAll(async () => {
  fake = await startFakeAnthropic();
  fake.respondWith(() => reply(respond([part('response', 'Hello.')], 'complete')));
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  const env = loadEnv({
    ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', PUBLIC_URL,
    TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: twilio.url,
  }, { appDir: process.cwd() });
  service = await startService({
    env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0,
    sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [webChannel, smsChannel],
    senderStore: { clock: () => new Date(BASE + hoursLater * HOUR_MS + (Date.now() - startedAt)) },
  });
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await service.close();
  await redis.quit();
  await twilio.close();
  await fake.close();
});

const numberOf = (index: number): string => `+1555020${String(index).padStart(4, '0')}`;
let sid = 0;

/** Posts every text, `CONCURRENCY` at a time; resolves to the HTTP statuses. */
async function flood(texts: readonly { from: string; body: string }[]): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < texts.length) {
      const { from, body } = texts[next++] ?? { from: '', body: '' };
      sid += 1;
      const params = inboundSmsParams({ from, to: BOT, body, accountSid: ACCOUNT, messageSid: `SM${sid.toString(16).padStart(32, '0')}` });
      statuses.push((await postTwilioWebhook({ url: `${service.url ?? ''}/webhooks/twilio/sms`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/sms`, authToken: TOKEN, params })).status);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

/** Codes issued to `number` today, as the sender store counts them. */
const codesTo = async (number: string): Promise<number> => Number((await redis.get(`${prefix}:snd:sms:issued:${number}:2026-12-01`)) ?? 0);
const codesPerNumber = (count: number): Promise<number[]> => Promise.all(Array.from({ length: count }, (_, index) => codesTo(numberOf(index))));
const metric = async (outcome: string): Promise<number> => {
  const text = await (await fetch(`${service.url ?? ''}/metrics`)).text();
  return Number(new RegExp(`switchboard_sender_policy_total\\{channel="sms",outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
};

describe('a flood of strangers over SMS', () => {
  it('costs no model call and sends one pairing code per number, however many messages', async () => {
    // Round-robin over the senders: each number's five messages are spread through the flood.
    const texts = Array.from({ length: SENDERS * MESSAGES_EACH }, (_, index) => ({ from: numberOf(index % SENDERS), body: `message ${String(index)}` }));
    const started = performance.now();
    const statuses = await flood(texts);
    const floodMs = performance.now() - started;
    expect(statuses.filter((status) => status === 200)).toHaveLength(SENDERS * MESSAGES_EACH);
    // The first codes reach Twilio while the rest wait their turn in the outbound queue, one a
    // second: which number's goes first is whichever claimed the channel's window first, not
    // necessarily the first to write.
    await waitFor(() => twilio.messages().some((message) => /pairing code is [A-Z0-9]{4}-[A-Z0-9]{4}/.test(message.body)), 'a pairing code delivered');

    const perNumber = await codesPerNumber(SENDERS);
    const figures = {
      messages: texts.length,
      senders: SENDERS,
      modelCalls: fake.messageRequests.length,
      pairingCodes: perNumber.reduce((sum, codes) => sum + codes, 0),
      codesWaitingApproval: (await redis.zcard(`${prefix}:snd:codes`)),
      pairingCodeOutcomes: await metric('pairing-code-sent'),
      heldOutcomes: await metric('held'),
      floodSeconds: Number((floodMs / 1000).toFixed(2)),
      webhooksPerSecond: Math.round(texts.length / (floodMs / 1000)),
    };
    process.stdout.write(`pairing flood: ${JSON.stringify(figures)}\n`);
    expect(figures.modelCalls).toBe(0);
    expect(figures.pairingCodes).toBe(SENDERS);
    expect(perNumber.every((codes) => codes === 1)).toBe(true);
    expect(figures.codesWaitingApproval).toBe(SENDERS);
    expect(figures.pairingCodeOutcomes).toBe(SENDERS);
    expect(figures.heldOutcomes).toBe(SENDERS * (MESSAGES_EACH - 1));
  });

  it('gives a number at most three codes a day, however long it keeps writing', async () => {
    const persistent = 20;
    for (let hour = 1; hour <= 4; hour += 1) {
      hoursLater = hour;
      await flood(Array.from({ length: persistent }, (_, index) => ({ from: numberOf(index), body: `hour ${String(hour)}` })));
    }
    const perNumber = await codesPerNumber(persistent);
    const outcomes = { pairingCodes: await metric('pairing-code-sent'), held: await metric('held') };
    process.stdout.write(`pairing flood, ${String(persistent)} numbers writing hourly for 4 more hours: codes per number ${JSON.stringify([...new Set(perNumber)])}, outcomes ${JSON.stringify(outcomes)}, model calls ${String(fake.messageRequests.length)}\n`);
    expect(perNumber.every((codes) => codes === 3)).toBe(true);
    // Hours 1 and 2 brought a new code each; hours 3 and 4 only held the message.
    expect(outcomes).toEqual({ pairingCodes: SENDERS + persistent * 2, held: SENDERS * (MESSAGES_EACH - 1) + persistent * 2 });
    expect(fake.messageRequests).toHaveLength(0);
  });
});
