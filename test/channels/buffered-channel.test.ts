/**
 * A buffered channel plugged into the running service by one line (`channels: [...]`): inbound
 * through its signed webhook, answers rendered by the kit and sent through the outbound queue,
 * approvals asked on the approver's channel and decided by a text reply, `notify` to another
 * person, a provider's 429 honoured, and a bad signature refused with nothing enqueued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { webChannel } from '../../channels/web/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { writeApp } from '../../src/runtime/app/app-test-fixtures.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startFakeInboxProvider, type FakeInboxProvider } from '../fakes/fake-inbox-provider.ts';
import { createInboxChannel } from '../fixtures/inbox-channel/index.ts';
import { inboxSignature } from '../fixtures/inbox-channel/inbound.ts';
import { useRedis, uniquePrefix } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { Redis } from 'ioredis';
import { inboundJobId } from '../../queues/job-ids.ts';
import { smsSegmentCount } from '../../channels/kit/render/sms-segments.ts';

const SECRET = 'inbox-webhook-secret';
const redisUrl = useRedis();
const prefix = uniquePrefix('buffered');
let fake: FakeAnthropic;
let provider: FakeInboxProvider;
let service: Service;
let redis: Redis;
let sent = 0;

const appDir = writeApp({
  'switchboard.yaml': [
    'app: inbox-app',
    'entryActor: main',
    'people:',
    '  - { id: ada, name: Ada Lovelace, addresses: { email: [ada@example.com] } }',
    '  - { id: fin, name: Finance desk, addresses: { email: [finance@example.com] }, roles: [finance] }',
    'approvals:',
    '  - { tool: pay_invoice, approvers: ["role:finance"], allowRequester: false, expiresInMinutes: 60 }',
  ].join('\n'),
  'actors/main.yaml': 'name: main\nsystem: Follow the test script.\ntools: [pay_invoice, notify]\n',
  'tools/pay_invoice.mjs': [
    'export default {',
    "  name: 'pay_invoice', description: 'Pays an invoice.', scope: 'generalist', requiresApproval: true,",
    "  inputSchema: { type: 'object', properties: { invoice: { type: 'string' }, amount: { type: 'number' }, currency: { type: 'string' } }, required: ['invoice', 'amount'], additionalProperties: false },",
    '  handler: (args) => ({ paid: args.invoice }),',
    '};',
  ].join('\n'),
});

const LONG = [
  '# Your options',
  '',
  ...Array.from({ length: 8 }, (_, index) => `- **Option ${index + 1}**: the direct flight at 08:${String(10 + index)} costs £${90 + index}; details at [the fare page](https://example.com/fares/${index}).`),
  '',
  'Tell me which one you want and I will book it.',
].join('\n');

async function postInbox(from: string, text: string, messageId: string, signature?: string): Promise<number> {
  const body = JSON.stringify({ messageId, from, to: 'bot@example.com', text, sentAt: new Date().toISOString() });
  const response = await fetch(`${service.url ?? ''}/webhooks/inbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-inbox-signature': signature ?? inboxSignature(SECRET, body) },
    body,
  });
  return response.status;
}

function textsTo(address: string): string[] {
  return provider.messages(address).map((message) => message.text);
}

beforeAll(async () => {
  fake = await startFakeAnthropic();
  provider = await startFakeInboxProvider();
  redis = new Redis(redisUrl());
  fake.respondWith(
    scenarioScript({
      answer: [() => reply(respond([part('ack', 'Looking.')], 'awaiting'), respond([part('response', LONG)], 'complete'))],
      pay: [
        () => reply(toolCall('pay_invoice', { invoice: 'INV-7', amount: 1200, currency: 'GBP' })),
        (call) => reply(respond([part('response', `Done: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
      ],
      notify: [
        () => reply(toolCall('notify', { person: 'fin', text: 'Heads up: **INV-9** is due Friday.' })),
        (call) => reply(respond([part('response', `Told them. ${call.toolResults[0]?.content ?? ''}`)], 'complete')),
      ],
    }),
  );
  const env = loadEnv({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent' }, { appDir });
  service = await startService({
    env,
    role: 'all',
    redisUrl: redisUrl(),
    logger: pino({ level: 'silent' }),
    prefix,
    port: 0,
    channels: [webChannel, createInboxChannel({ apiUrl: provider.url, token: provider.token, webhookSecret: SECRET, botAddress: 'bot@example.com', id: 'email' })],
  });
});

afterAll(async () => {
  await service.close();
  await provider.close();
  await fake.close();
  await redis.quit();
});

describe('a buffered channel on the running service', () => {
  it('refuses a forged webhook with nothing enqueued', async () => {
    const calls = fake.messageRequests.length;
    expect(await postInbox('ada@example.com', 'hello #answer', 'forged-1', 'f'.repeat(64))).toBe(401);
    expect(await redis.exists(`${prefix}:inbound:${inboundJobId('email:forged-1')}`)).toBe(0);
    expect(fake.messageRequests.length).toBe(calls);
  });

  it('answers once, as plain numbered chunks within the segment limit, and a redelivery is dropped', async () => {
    expect(await postInbox('ada@example.com', 'what are my options? #answer', 'm-answer')).toBe(200);
    await waitFor(() => textsTo('ada@example.com').length >= 2, 'the answer arrived');
    expect(await postInbox('ada@example.com', 'what are my options? #answer', 'm-answer')).toBe(200);
    const chunks = textsTo('ada@example.com');
    sent = chunks.length;
    expect(chunks[0]).toMatch(/^\(1\/\d\) /);
    for (const chunk of chunks) {
      expect(smsSegmentCount(chunk)).toBeLessThanOrEqual(3);
      expect(chunk).not.toMatch(/\*\*|^#|\]\(/m);
    }
    const all = chunks.join('\n');
    expect(all).toContain('Option 8');
    expect(all).toContain('the fare page: https://example.com/fares/7');
    expect(all).not.toContain('Looking.');
    const log = await createEventLog({ redis, prefix }).read(sessionIdOf('default', 'email', 'ada@example.com'));
    expect(log.filter((entry) => entry.type === 'delivery').length).toBeGreaterThanOrEqual(1);
  });

  it('asks the approver on their channel; the requester cannot approve; the approver replies APPROVE <code>', async () => {
    expect(await postInbox('ada@example.com', 'pay INV-7 #pay', 'm-pay')).toBe(200);
    await waitFor(() => textsTo('finance@example.com').some((text) => /APPROVE [A-Z0-9]{6}/.test(text)), 'the approval request reached finance');
    const request = textsTo('finance@example.com').find((text) => text.includes('APPROVE')) ?? '';
    const code = /APPROVE ([A-Z0-9]{6})/.exec(request)?.[1] ?? '';
    expect(request).toContain('1,200');
    expect(await postInbox('ada@example.com', `APPROVE ${code}`, 'm-ada-approves')).toBe(200);
    await waitFor(() => textsTo('ada@example.com').some((text) => text.includes(`No pending approval ${code}`)), 'ada was told she has no such approval to decide');
    expect(await postInbox('finance@example.com', `approve ${code.toLowerCase()}`, 'm-fin-approves')).toBe(200);
    await waitFor(() => textsTo('ada@example.com').some((text) => text.includes('Done: ')), 'the turn resumed and answered ada');
    expect(textsTo('finance@example.com').some((text) => text.startsWith(`Approved ${code}`))).toBe(true);
    expect(textsTo('ada@example.com').filter((text) => text.includes('Done: '))).toHaveLength(1);
  });

  it('notify sends to another person on their channel, in plain text', async () => {
    expect(await postInbox('ada@example.com', 'tell finance #notify', 'm-notify')).toBe(200);
    await waitFor(() => textsTo('finance@example.com').some((text) => text.includes('INV-9')), 'finance got the notice');
    expect(textsTo('finance@example.com').find((text) => text.includes('INV-9'))).toBe('Heads up: INV-9 is due Friday.');
    await waitFor(() => textsTo('ada@example.com').some((text) => text.startsWith('Told them.')), 'ada got the confirmation');
  });

  it('a provider 429 with Retry-After is waited out, and the message still goes once', async () => {
    provider.failNext(1, 429, 1);
    const before = provider.attempts().length;
    expect(await postInbox('ada@example.com', 'options again #answer', 'm-429')).toBe(200);
    // The answer arrived, and the provider saw the refused attempt and the one after it (under load
    // the count of texts alone can be reached first).
    const refusedThenRetried = (): boolean => {
      const seen = provider.attempts().slice(before);
      const index = seen.findIndex((attempt) => attempt.status === 429);
      return index >= 0 && index + 1 < seen.length;
    };
    await waitFor(() => textsTo('ada@example.com').length >= sent * 2 + 3 && refusedThenRetried(), 'the second answer arrived after a 429 and a retry', 20_000);
    const attempts = provider.attempts().slice(before);
    const throttled = attempts.find((attempt) => attempt.status === 429);
    const next = attempts[attempts.findIndex((attempt) => attempt.status === 429) + 1];
    expect(throttled).toBeDefined();
    expect((next?.at ?? 0) - (throttled?.at ?? 0)).toBeGreaterThanOrEqual(950);
    const keys = provider.messages().map((message) => message.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
