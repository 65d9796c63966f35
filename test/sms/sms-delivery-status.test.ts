/**
 * Twilio's later word on an answer lands in the conversation's log (issue 26): the service
 * remembers which session each sent SMS belongs to, a status callback writes a `delivery_status`
 * entry there, and an undelivered answer shows the conversation as failed in the index.
 */
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsChannel } from '../../channels/sms/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { createConversationIndex } from '../../src/runtime/inspect/conversation-index.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { FakeTwilio } from '../fakes/fake-twilio-types.ts';
import { inboundSmsParams, postTwilioWebhook } from '../fakes/twilio-webhook.ts';
import { openExampleApp } from '../support/open-example-app.ts';
import { uniquePrefix, useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';

const ACCOUNT = `AC${'6'.repeat(32)}`;
const TOKEN = 'sms-status-auth-token';
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bot.example.com';

const redisUrl = useRedis();
const appDir = openExampleApp('switchboard-sms-status-', ['sms']);
const prefix = uniquePrefix('sms-status');
let fake: FakeAnthropic;
let twilio: FakeTwilio;
let service: Service;
let redis: Redis;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  redis = new Redis(redisUrl());
  fake.respondWith(scenarioScript({ status: [() => reply(respond([part('response', 'MW 304 leaves at 07:25.')], 'complete'))] }));
  const env = loadEnv({
    ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', PUBLIC_URL,
    TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: twilio.url,
  }, { appDir });
  service = await startService({ env, role: 'all', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, channels: [smsChannel] });
});

afterAll(async () => {
  await service.close();
  await redis.quit();
  await twilio.close();
  await fake.close();
  rmSync(appDir, { recursive: true, force: true });
});

describe('sms: delivery statuses in the conversation log', () => {
  it('writes each status of the answer into its session, and an undelivered one fails the conversation', async () => {
    const ada = '+15550107001';
    const params = inboundSmsParams({ from: ada, to: BOT, body: 'When does it leave? #status', accountSid: ACCOUNT, messageSid: `SM${'7'.repeat(32)}` });
    expect((await postTwilioWebhook({ url: `${service.url ?? ''}/webhooks/twilio/sms`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/sms`, authToken: TOKEN, params })).status).toBe(200);
    await waitFor(() => twilio.messages(ada).length === 1, 'the answer');
    const index = createConversationIndex({ redis, prefix });
    await waitFor(async () => (await index.search({ address: ada })).items[0]?.state === 'settled', 'the conversation settled in the index');
    const [conversation] = (await index.search({ address: ada, channel: 'sms' })).items;
    const sessionId = conversation?.sessionId ?? '';
    const sid = twilio.messages(ada)[0]?.sid ?? '';
    const log = createEventLog({ redis, prefix });
    // The id is remembered when the send is recorded, just after Twilio answered it.
    await waitFor(async () => (await redis.exists(`${prefix}:sent:sms:${sid}`)) === 1, 'the sent message remembered');

    await twilio.deliverStatuses(sid, ['queued', 'sent', 'undelivered'], { url: `${service.url ?? ''}/webhooks/twilio/status`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/status` });
    const statuses = (await log.read(sessionId)).filter((entry) => entry.type === 'delivery_status');
    expect(statuses.map((entry) => entry.data['status'])).toEqual(['queued', 'sent', 'undelivered']);
    const turnId = (await log.read(sessionId)).find((entry) => entry.type === 'turn_settled')?.turnId;
    expect(statuses[2]).toMatchObject({ turnId, data: { channel: 'sms', providerMessageId: sid, status: 'undelivered', errorCode: '30003' } });
    expect(typeof statuses[2]?.data['at']).toBe('string');
    expect((await index.get(sessionId))?.state).toBe('failed');
  });
});
