import { afterEach, beforeEach } from 'vitest';
import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { useContractAdaptor, useContractOutbound } from '../kit/contract/contract-context.ts';
import { smsSegmentCount } from '../kit/render/sms-segments.ts';
import { startFakeTwilio } from '../../test/fakes/fake-twilio.ts';
import type { FakeTwilio } from '../../test/fakes/fake-twilio-types.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { smsChannel } from './index.ts';
import { CUT_NOTE } from './render.ts';
import type { SmsEvent } from './sms-event.ts';

const ACCOUNT = `AC${'1'.repeat(32)}`;
const TOKEN = 'contract-auth-token';
const BOT_NUMBER = '+15005550006';
const GRACE = '+15550100123';
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let twilio: FakeTwilio | undefined;

const grace = { id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: [], sms: [GRACE], slack: [], whatsapp: [] }, roles: [] };

function event(overrides: Partial<SmsEvent> = {}): SmsEvent {
  return { type: 'sms', messageSid: `SM${'a'.repeat(32)}`, from: GRACE, to: BOT_NUMBER, body: 'Any flights to Corfu?', attachments: [], notes: [], receivedAt: '2030-01-01T10:00:00.000Z', ...overrides };
}

beforeEach(async () => {
  twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT_NUMBER] });
});
const sms = useContractAdaptor({
  redisUrl,
  prefix,
  people: [grace],
  env: () => ({ TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT_NUMBER, TWILIO_API_URL: twilio?.url ?? '' }),
  create: (context) => smsChannel.create(context),
});
// The long-code limit (one message a second) is lifted so the suite's long answer goes at once.
const send = useContractOutbound({ redisUrl, prefix, channel: 'sms', sender: () => ({ ...sms.adaptor().sender, rateLimit: { max: 100, durationMs: 1000 } }), received: () => twilio?.messages().length ?? 0, provider: 'Twilio' });
afterEach(async () => {
  await twilio?.close();
});

runChannelContract('sms (buffered, Twilio REST through the outbound queue)', {
  adaptor: () => sms.adaptor(),
  enqueue: (injection) => sms.context().enqueue(injection),
  inbound: {
    event: () => event({ idempotencyToken: 'idem-1' }),
    expect: { id: 'sms:idem-1', conversationKey: GRACE, sender: { id: GRACE, verified: true, basis: `Twilio-signed webhook; caller ID ${GRACE}`, personId: 'grace', displayName: 'Grace Hopper' }, replyTo: { channel: 'sms', address: GRACE } },
  },
  malformed: { ...event(), from: 'not a number' },
  destination: { channel: 'sms', address: GRACE },
  approver: { channel: 'sms', address: GRACE },
  limit: { measure: (message) => smsSegmentCount(String(message['body'])), max: 3 },
  cutNote: CUT_NOTE,
  textOf: (message) => String(message['body']),
  send,
  delivered: () => Promise.resolve(twilio?.messages(GRACE).length ?? 0),
});
