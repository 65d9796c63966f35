import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { inboundSmsParams, postTwilioWebhook } from '../../test/fakes/twilio-webhook.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { createSmsRoutes } from './inbound.ts';
import { normaliseSmsEvent } from './normalise.ts';
import type { SmsStore } from './sms-store.ts';

const ACCOUNT = `AC${'3'.repeat(32)}`;
const TOKEN = 'inbound-unit-token';
const PUBLIC_URL = 'https://bot.example.com';
let server: TestServer | undefined;

afterEach(async () => { await server?.close(); });

function memoryStore(): SmsStore {
  const optedOut = new Set<string>();
  return {
    optOut: (number) => { optedOut.add(number); return Promise.resolve(); },
    optIn: (number) => { optedOut.delete(number); return Promise.resolve(); },
    isOptedOut: (number) => Promise.resolve(optedOut.has(number)),
    recordStatus: () => Promise.resolve(true),
    status: () => Promise.resolve(undefined),
  };
}

async function start(enqueue: (injection: Injection) => Promise<unknown>): Promise<string> {
  const routes = createSmsRoutes({
    check: { authToken: TOKEN, accountSid: ACCOUNT, publicUrl: PUBLIC_URL },
    ourNumber: '+15005550006',
    store: memoryStore(),
    media: { accountSid: ACCOUNT, authToken: TOKEN, apiUrl: 'http://127.0.0.1:1', artifacts: { put: () => Promise.reject(new Error('no media expected')) } },
    normalise: (event) => normaliseSmsEvent(event, { people: [], tenantId: 'default' }),
    enqueue,
    helpText: 'help',
    logger: pino({ level: 'silent' }),
    clock: () => new Date('2030-01-01T10:00:00.000Z'),
  });
  server = await startTestServer(routes);
  return `${server.url}/webhooks/twilio/sms`;
}

function post(url: string, params: Record<string, string>) {
  return postTwilioWebhook({ url, signedUrl: `${PUBLIC_URL}/webhooks/twilio/sms`, authToken: TOKEN, params });
}

describe('the SMS webhook', () => {
  it('answers 503 with Retry-After when the message cannot be enqueued, so Twilio retries; nothing is answered as taken', async () => {
    const url = await start(() => Promise.reject(new Error('Redis is down')));
    const answer = await post(url, inboundSmsParams({ from: '+15550108001', to: '+15005550006', body: 'hello', accountSid: ACCOUNT }));
    expect(answer.status).toBe(503);
    expect(answer.body).not.toContain('<Response');
  });

  it('refuses a message to another number, and one of another account, before anything is enqueued', async () => {
    const taken: Injection[] = [];
    const url = await start((injection) => { taken.push(injection); return Promise.resolve({ duplicate: false }); });
    expect((await post(url, inboundSmsParams({ from: '+15550108002', to: '+15005550099', body: 'hello', accountSid: ACCOUNT }))).status).toBe(403);
    expect((await post(url, inboundSmsParams({ from: '+15550108002', to: '+15005550006', body: 'hello', accountSid: `AC${'4'.repeat(32)}` }))).status).toBe(403);
    expect((await post(url, inboundSmsParams({ from: '+15550108002', to: '+15005550006', body: 'hello', accountSid: ACCOUNT }))).status).toBe(200);
    expect(taken.map((injection) => injection.sender.id)).toEqual(['+15550108002']);
  });
});
