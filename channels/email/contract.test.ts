import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { useContractAdaptor, useContractOutbound } from '../kit/contract/contract-context.ts';
import { useRedis, useKeyPrefix } from '../../test/support/redis.ts';
import { useSmtpRecorder } from '../../test/support/smtp-recorder.ts';
import type { EmailEvent } from './email-event.ts';
import { createEmailChannel } from './index.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const smtp = useSmtpRecorder();

const grace = { id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: ['grace@example.com'], sms: [], slack: [], whatsapp: [] }, roles: [] };

function event(overrides: Partial<EmailEvent> = {}): EmailEvent {
  return {
    type: 'email',
    uidValidity: 1700000000,
    uid: 42,
    messageId: '<CAF-1@mail.example.com>',
    references: '',
    subject: 'Corfu in May',
    from: 'grace@example.com',
    conversationKey: 'grace@example.com <CAF-1@mail.example.com>',
    text: 'Any flights to Corfu?',
    attachments: [],
    verified: true,
    basis: 'DKIM pass d=example.com, aligned with From',
    receivedAt: '2030-01-01T10:00:00.000Z',
    ...overrides,
  };
}

const email = useContractAdaptor({
  redisUrl,
  prefix,
  people: [grace],
  env: () => ({ IMAP_URL: 'imap://bot%40example.com:pw@127.0.0.1:1/INBOX', SMTP_URL: smtp().url, EMAIL_FROM: 'Concierge <bot@example.com>' }),
  create: (context) => createEmailChannel().create(context),
});
const send = useContractOutbound({ redisUrl, prefix, channel: 'email', sender: () => email.adaptor().sender, received: () => smtp().messages().length, provider: 'the SMTP server' });

runChannelContract('email (buffered, SMTP through the outbound queue)', {
  adaptor: () => email.adaptor(),
  enqueue: (injection) => email.context().enqueue(injection),
  inbound: {
    event: () => event(),
    expect: {
      id: 'email:1700000000-42',
      conversationKey: 'grace@example.com <CAF-1@mail.example.com>',
      sender: { id: 'grace@example.com', verified: true, basis: 'DKIM pass d=example.com, aligned with From', personId: 'grace', displayName: 'Grace Hopper' },
      replyTo: {
        channel: 'email',
        address: 'grace@example.com',
        thread: { messageId: '<CAF-1@mail.example.com>', references: '', subject: 'Corfu in May', conversation: 'grace@example.com <CAF-1@mail.example.com>' },
      },
    },
  },
  ignored: [event({ from: 'bot@example.com' })],
  malformed: { ...event(), uid: 'forty-two' },
  destination: { channel: 'email', address: 'grace@example.com' },
  approver: { channel: 'email', address: 'grace@example.com' },
  textOf: (message) => String(message['text']),
  send,
  delivered: () => Promise.resolve(smtp().messages().filter((mail) => mail.envelope.rcptTo.includes('grace@example.com')).length),
});
