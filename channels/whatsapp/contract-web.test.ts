import { afterEach, beforeEach } from 'vitest';
import type { RunningListener } from '../channel.ts';
import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { useContractAdaptor, useContractOutbound } from '../kit/contract/contract-context.ts';
import { createLease } from '../kit/lease/lease.ts';
import { createFakeWwebjs, type FakeWwebjs } from '../../test/fakes/fake-wwebjs.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import { createWhatsAppChannel } from './index.ts';
import { createLinkStateStore } from './web/link-state.ts';
import type { WhatsAppMessageEvent } from './whatsapp-event.ts';
import { MAX_TEXT_CHARS, readWhatsAppPayload } from './whatsapp-payload.ts';

const GRACE = '+447700900123';
const MESSAGE_ID = 'false_447700900123@c.us_3EB0C767D26A1D8F8C25';
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let fake: FakeWwebjs = createFakeWwebjs();
let session: { running: RunningListener; release: () => Promise<boolean> } | undefined;

const grace = { id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: [], sms: [], slack: [], whatsapp: [GRACE] }, roles: [] };

function event(overrides: Partial<WhatsAppMessageEvent> = {}): WhatsAppMessageEvent {
  return { type: 'whatsapp', via: 'web', messageId: MESSAGE_ID, from: GRACE, text: 'Any flights to Corfu?', attachments: [], notes: [], receivedAt: '2030-01-01T10:00:00.000Z', ...overrides };
}

function textOf(payload: Readonly<Record<string, unknown>>): string {
  const { message } = readWhatsAppPayload(payload);
  return message.kind === 'text' ? message.text : message.kind === 'media' ? message.name : '';
}

beforeEach(() => {
  fake = createFakeWwebjs();
});
const whatsapp = useContractAdaptor({
  redisUrl,
  prefix,
  people: [grace],
  env: () => ({ WHATSAPP_MODE: 'web', CHROMIUM_PATH: '/usr/bin/chromium' }),
  create: (context) => createWhatsAppChannel({ webClient: (options) => fake.factory(options), printQr: () => Promise.resolve() }).create(context),
});
// The session runs under its lease, as a worker runs it, and is linked before each test.
beforeEach(async () => {
  const { redis } = whatsapp.context();
  const listener = whatsapp.adaptor().listener;
  if (listener === undefined) throw new Error('web mode has a listener');
  const lease = createLease({ redis, key: `${prefix()}:lease:whatsapp:${listener.singletonKey ?? ''}`, ttlMs: 5000 });
  const running = await listener.start(await lease.acquire());
  session = { running, release: () => lease.release() };
  const links = createLinkStateStore({ redis, prefix: prefix() });
  await waitFor(async () => (await links.read())?.status === 'waiting-for-qr', 'the QR code');
  await fake.latest().scan();
  await waitFor(async () => (await links.read())?.status === 'ready', 'the session ready');
});
afterEach(async () => {
  await session?.running.stop();
  await session?.release();
});
const send = useContractOutbound({ redisUrl, prefix, channel: 'whatsapp', sender: () => ({ ...whatsapp.adaptor().sender, rateLimit: { max: 100, durationMs: 1000 } }), received: () => fake.world.sent.length, provider: 'the WhatsApp Web session' });

runChannelContract('whatsapp (buffered, whatsapp-web.js session through the outbound queue)', {
  adaptor: () => whatsapp.adaptor(),
  enqueue: (injection) => whatsapp.context().enqueue(injection),
  inbound: {
    event: () => event(),
    expect: { id: `whatsapp:${MESSAGE_ID}`, conversationKey: GRACE, sender: { id: GRACE, verified: true, basis: `WhatsApp Web linked session; WhatsApp number ${GRACE}`, personId: 'grace', displayName: 'Grace Hopper' }, replyTo: { channel: 'whatsapp', address: GRACE, thread: { quoteId: MESSAGE_ID } } },
  },
  malformed: { ...event(), via: 'carrier pigeon' },
  destination: { channel: 'whatsapp', address: GRACE },
  approver: { channel: 'whatsapp', address: GRACE },
  limit: { measure: (message) => textOf(message).length, max: MAX_TEXT_CHARS },
  textOf,
  send,
  delivered: () => Promise.resolve(fake.world.sent.filter((sent) => sent.chatId === '447700900123@c.us').length),
});
