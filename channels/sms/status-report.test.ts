import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { postTwilioWebhook } from '../../test/fakes/twilio-webhook.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import type { ProviderDeliveryStatus } from '../../src/runtime/inspect/delivery-status.ts';
import { createSmsRoutes } from './inbound.ts';
import type { SmsStore } from './sms-store.ts';

const ACCOUNT = `AC${'5'.repeat(32)}`;
const TOKEN = 'status-unit-token';
const PUBLIC_URL = 'https://bot.example.com';
let server: TestServer | undefined;

afterEach(async () => { await server?.close(); });

describe("the SMS status callback reports a message's progress", () => {
  it('reports each status that moved forward, in switchboard words, and nothing for a repeat', async () => {
    const saved = new Set<string>();
    const store: SmsStore = {
      optOut: () => Promise.resolve(),
      optIn: () => Promise.resolve(),
      isOptedOut: () => Promise.resolve(false),
      // Forward only, as the real store: a status seen before is not saved again.
      recordStatus: (status) => { const fresh = !saved.has(status.status); saved.add(status.status); return Promise.resolve(fresh); },
      status: () => Promise.resolve(undefined),
    };
    const reports: ProviderDeliveryStatus[] = [];
    server = await startTestServer(createSmsRoutes({
      check: { authToken: TOKEN, accountSid: ACCOUNT, publicUrl: PUBLIC_URL },
      store,
      media: { accountSid: ACCOUNT, authToken: TOKEN, apiUrl: 'http://127.0.0.1:1', artifacts: { put: () => Promise.reject(new Error('no media expected')) } },
      normalise: () => { throw new Error('no message expected'); },
      enqueue: () => Promise.reject(new Error('no message expected')),
      helpText: 'help',
      logger: pino({ level: 'silent' }),
      clock: () => new Date('2030-01-01T10:00:00.000Z'),
      onStatus: (report) => { reports.push(report); return Promise.resolve(); },
    }));
    const sid = `SM${'a'.repeat(32)}`;
    const post = (params: Record<string, string>) => postTwilioWebhook({ url: `${server?.url ?? ''}/webhooks/twilio/status`, signedUrl: `${PUBLIC_URL}/webhooks/twilio/status`, authToken: TOKEN, params: { AccountSid: ACCOUNT, MessageSid: sid, ...params } });
    expect((await post({ MessageStatus: 'sending' })).status).toBe(200);
    expect((await post({ MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(200);
    expect((await post({ MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(200);
    expect(reports).toEqual([
      { channel: 'sms', providerMessageId: sid, status: 'queued', at: '2030-01-01T10:00:00.000Z' },
      { channel: 'sms', providerMessageId: sid, status: 'undelivered', errorCode: '30003', at: '2030-01-01T10:00:00.000Z' },
    ]);
  });
});
