import { Redis } from 'ioredis';
import { afterEach, beforeEach } from 'vitest';
import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { useContractAdaptor, useContractOutbound } from '../kit/contract/contract-context.ts';
import { startFakeGraph } from '../../test/fakes/fake-graph.ts';
import type { FakeGraph } from '../../test/fakes/fake-graph-types.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { createWhatsAppChannel } from './index.ts';
import { createServiceWindows } from './service-window.ts';
import type { WhatsAppMessageEvent } from './whatsapp-event.ts';
import { MAX_TEXT_CHARS, readWhatsAppPayload } from './whatsapp-payload.ts';

const TOKEN = 'EAAG-contract-token';
const NUMBER_ID = '106540352242922';
const GRACE = '+447700900123';
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let graph: FakeGraph | undefined;

const grace = { id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: [], sms: [], slack: [], whatsapp: [GRACE] }, roles: [] };

function event(overrides: Partial<WhatsAppMessageEvent> = {}): WhatsAppMessageEvent {
  return { type: 'whatsapp', via: 'cloud', messageId: 'wamid.HBgMNDQ3NzAwOTAwMTIzFQIAEhggQ09OVFJBQ1Q', from: GRACE, text: 'Any flights to Corfu?', attachments: [], notes: [], receivedAt: '2030-01-01T10:00:00.000Z', ...overrides };
}

/** The text a person sees in one message: a text's body, a button message's body, a file's name. */
function textOf(payload: Readonly<Record<string, unknown>>): string {
  const { message } = readWhatsAppPayload(payload);
  if (message.kind === 'text') return message.text;
  if (message.kind === 'buttons') return `${message.body}\n${message.buttons.map((button) => button.title).join(' ')}`;
  return message.kind === 'media' ? message.name : message.bodyParams.join(' ');
}

beforeEach(async () => {
  graph = await startFakeGraph({ token: TOKEN, phoneNumberId: NUMBER_ID });
  // Grace wrote an hour ago: her 24-hour window is open, here and at the fake Meta.
  const redis = new Redis(redisUrl());
  await createServiceWindows({ redis, prefix: `${prefix()}:whatsapp:${NUMBER_ID}` }).noteInbound(GRACE, new Date(Date.now() - 3_600_000));
  await redis.quit();
  graph.contactWrote(GRACE, new Date(Date.now() - 3_600_000));
});
const whatsapp = useContractAdaptor({
  redisUrl,
  prefix,
  people: [grace],
  env: () => ({ WHATSAPP_MODE: 'cloud', WHATSAPP_TOKEN: TOKEN, WHATSAPP_PHONE_NUMBER_ID: NUMBER_ID, WHATSAPP_APP_SECRET: 'contract-app-secret', WHATSAPP_VERIFY_TOKEN: 'contract-verify', WHATSAPP_API_URL: graph?.apiUrl ?? '' }),
  create: (context) => createWhatsAppChannel().create(context),
});
const send = useContractOutbound({ redisUrl, prefix, channel: 'whatsapp', sender: () => whatsapp.adaptor().sender, received: () => graph?.sends().length ?? 0, provider: 'the Graph API' });
afterEach(async () => {
  await graph?.close();
});

runChannelContract('whatsapp (buffered, Cloud API through the outbound queue)', {
  adaptor: () => whatsapp.adaptor(),
  enqueue: (injection) => whatsapp.context().enqueue(injection),
  inbound: {
    event: () => event(),
    expect: { id: 'whatsapp:wamid.HBgMNDQ3NzAwOTAwMTIzFQIAEhggQ09OVFJBQ1Q', conversationKey: GRACE, sender: { id: GRACE, verified: true, basis: `Meta-signed webhook; WhatsApp number ${GRACE}`, personId: 'grace', displayName: 'Grace Hopper' }, replyTo: { channel: 'whatsapp', address: GRACE, thread: { quoteId: 'wamid.HBgMNDQ3NzAwOTAwMTIzFQIAEhggQ09OVFJBQ1Q' } } },
  },
  malformed: { ...event(), from: 'not a number' },
  destination: { channel: 'whatsapp', address: GRACE },
  approver: { channel: 'whatsapp', address: GRACE },
  limit: { measure: (message) => textOf(message).length, max: MAX_TEXT_CHARS },
  textOf,
  send,
  delivered: () => Promise.resolve(graph?.sends(GRACE).length ?? 0),
});
