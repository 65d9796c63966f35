import { afterEach, beforeEach } from 'vitest';
import { runChannelContract } from '../kit/contract/channel-contract.ts';
import { useContractAdaptor, useContractOutbound } from '../kit/contract/contract-context.ts';
import { startFakeSlack } from '../../test/fakes/fake-slack.ts';
import type { FakeSlack } from '../../test/fakes/fake-slack-types.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { slackChannel } from './index.ts';
import type { SlackMessageEvent } from './slack-event.ts';

const TOKEN = 'xoxb-contract';
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let slack: FakeSlack | undefined;

const grace = { id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: [], sms: [], slack: ['T0FAKE01:U0GRACE01'], whatsapp: [] }, roles: [] };

/** The `text` of a rendered payload. */
function textField(message: Readonly<Record<string, unknown>>): string {
  const text = message['text'];
  return typeof text === 'string' ? text : '';
}

function event(overrides: Partial<SlackMessageEvent> = {}): SlackMessageEvent {
  return { type: 'slack-message', eventId: 'Ev0CONTRACT1', teamId: 'T0FAKE01', channel: 'D0DM00001', user: 'U0GRACE01', ts: '1700000000.000100', text: 'Any flights to Corfu?', notes: [], receivedAt: '2030-01-01T10:00:00.000Z', ...overrides };
}

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
});
const adaptor = useContractAdaptor({
  redisUrl,
  prefix,
  people: [grace],
  env: () => ({ SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: 'contract-signing-secret', SLACK_API_URL: slack?.url ?? '' }),
  create: (context) => slackChannel.create(context),
});
// Slack's per-channel limit is lifted so the suite's long answer goes at once.
const send = useContractOutbound({ redisUrl, prefix, channel: 'slack', sender: () => ({ ...adaptor.adaptor().sender, destinationRateLimit: { max: 100, durationMs: 1000 } }), received: () => slack?.messages().length ?? 0, provider: 'Slack' });
afterEach(async () => {
  await slack?.close();
});

runChannelContract('slack (streaming, Web API through the outbound queue)', {
  adaptor: () => adaptor.adaptor(),
  enqueue: (injection) => adaptor.context().enqueue(injection),
  inbound: {
    event: () => event(),
    expect: {
      id: 'slack:T0FAKE01:Ev0CONTRACT1',
      conversationKey: 'T0FAKE01:D0DM00001:1700000000.000100',
      sender: { id: 'T0FAKE01:U0GRACE01', verified: true, basis: 'Slack-signed request', personId: 'grace', displayName: 'Grace Hopper' },
      replyTo: { channel: 'slack', address: 'D0DM00001', thread: { teamId: 'T0FAKE01', threadTs: '1700000000.000100' } },
    },
  },
  malformed: { ...event(), ts: 'yesterday' },
  destination: { channel: 'slack', address: 'D0DM00001', thread: { teamId: 'T0FAKE01', threadTs: '1700000000.000100' } },
  approver: { channel: 'slack', address: 'T0FAKE01:U0GRACE01' },
  approverDestination: { channel: 'slack', address: 'U0GRACE01', thread: { teamId: 'T0FAKE01' } },
  limit: { measure: (message) => textField(message).length, max: 9000 },
  textOf: (message) => [textField(message), JSON.stringify(message['blocks'] ?? [])].join('\n'),
  send,
  delivered: () => Promise.resolve(slack?.messages('D0DM00001').length ?? 0),
});
