import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { deliveryTag } from '../../queues/sent-lookup.ts';
import { startFakeSlack } from '../../test/fakes/fake-slack.ts';
import type { FakeSlack } from '../../test/fakes/fake-slack-types.ts';
import { createSlackFindSent, DELIVERY_EVENT_TYPE } from './find-sent.ts';
import { createSlackSender } from './send.ts';

const TOKEN = 'xoxb-find-sent';
let fake: FakeSlack;
let client: WebClient;
let remembered: [string, unknown][];

beforeAll(async () => {
  fake = await startFakeSlack({ botToken: TOKEN, tsFrom: 'clock' });
  client = new WebClient(TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  remembered = [];
});

const store = {
  rememberMessage: (key: string, where: unknown) => {
    remembered.push([key, where]);
    return Promise.resolve();
  },
  messageOf: () => Promise.resolve(undefined),
};

function delivery(key: string, payload: Record<string, unknown>): OutboundDelivery {
  return { channel: 'slack', destination: { channel: 'slack', address: String(payload['channel']) }, idempotencyKey: key, payload };
}

const post = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ op: 'post', channel: 'C0CHAN001', text: 'Your table is booked.', ...extra });
const settled = { since: Date.now() - 60_000 };

describe('the Slack sender', () => {
  it('tags each post with the delivery in its metadata', async () => {
    await createSlackSender({ client, store }).send(delivery('k-tag', post()));
    expect(fake.messages('C0CHAN001').map((message) => message.metadata)).toEqual([
      { event_type: DELIVERY_EVENT_TYPE, event_payload: { tag: deliveryTag('k-tag') } },
    ]);
  });
});

describe('createSlackFindSent', () => {
  const findSent = (): ReturnType<typeof createSlackFindSent> => createSlackFindSent({ client, store, settleMs: 30_000 });

  it('finds a top-level post by its tag among others, and remembers it under its key', async () => {
    const sender = createSlackSender({ client, store });
    await sender.send(delivery('k-other', post({ text: 'Your table is booked.' })));
    await sender.send(delivery('k-card', post({ key: 'approval:A1' })));
    remembered = [];
    const found = await findSent()(delivery('k-card', post({ key: 'approval:A1' })), { since: Date.now() - 1000 });
    const [, card] = fake.messages('C0CHAN001');
    expect(found).toEqual({ kind: 'sent', receipt: { providerMessageId: card?.ts, details: { channel: 'C0CHAN001' } } });
    expect(remembered).toEqual([['C0CHAN001:approval:A1', { channel: 'C0CHAN001', ts: card?.ts }]]);
    expect(fake.calls('conversations.history').map((call) => call.args['include_all_metadata'])).toEqual(['true']);
  });

  it('finds a reply in its thread, and a post to a user id in the DM it opened', async () => {
    const sender = createSlackSender({ client, store });
    await sender.send(delivery('k-root', post()));
    const threadTs = fake.messages('C0CHAN001')[0]?.ts;
    await sender.send(delivery('k-reply', post({ threadTs })));
    await sender.send(delivery('k-dm', post({ channel: 'U0APPROVER1' })));

    expect(await findSent()(delivery('k-reply', post({ threadTs })), settled)).toMatchObject({ kind: 'sent', receipt: { providerMessageId: fake.messages('C0CHAN001')[1]?.ts } });
    expect(fake.calls('conversations.replies')).toHaveLength(1);
    expect(await findSent()(delivery('k-dm', post({ channel: 'U0APPROVER1' })), settled)).toMatchObject({ kind: 'sent', receipt: { details: { channel: 'D0APPROVER1' } } });
  });

  it('answers absent for a post Slack never got, once the earlier send had time to show', async () => {
    await createSlackSender({ client, store }).send(delivery('k-someone-else', post()));
    expect(await findSent()(delivery('k-lost', post()), settled)).toEqual({ kind: 'absent' });
    expect(await findSent()(delivery('k-lost', post()), { since: Date.now() })).toMatchObject({ kind: 'pending', retryAfterMs: expect.any(Number) as number });
  });

  it('reads every page before it says absent', async () => {
    const sender = createSlackSender({ client, store });
    for (let index = 0; index < 3; index += 1) await sender.send(delivery(`k-${String(index)}`, post()));
    const paged = createSlackFindSent({ client, store, settleMs: 0 });
    // The wanted post is the oldest: three pages of one message each, newest first.
    const original = client.conversations.history.bind(client.conversations);
    client.conversations.history = (args) => original({ ...args, limit: 1 });
    try {
      expect(await paged(delivery('k-0', post()), settled)).toMatchObject({ kind: 'sent' });
      expect(fake.calls('conversations.history').map((call) => call.args['cursor'] === undefined)).toEqual([true, false, false]);
    } finally {
      client.conversations.history = original;
    }
  });

  it('repeats statuses and updates, and cannot find ephemeral notes', async () => {
    const status = { op: 'status', channel: 'C0CHAN001', threadTs: '1700000000.000100', status: 'is looking…' };
    const update = { op: 'update', channel: 'C0CHAN001', ts: '1700000000.000100', text: 'Approved' };
    const ephemeral = { op: 'ephemeral', channel: 'C0CHAN001', user: 'U0USER001', text: 'Only approvers can decide.' };
    expect(await findSent()(delivery('k-s', status), settled)).toEqual({ kind: 'absent' });
    expect(await findSent()(delivery('k-u', update), settled)).toEqual({ kind: 'absent' });
    expect(await findSent()(delivery('k-e', ephemeral), settled)).toMatchObject({ kind: 'unknown' });
  });

  it('retries a rate-limited look-up without pausing the channel, and gives up on a refusal', async () => {
    fake.failNext('conversations.history', 1, { status: 429, retryAfterSeconds: 7 });
    await expect(findSent()(delivery('k-1', post()), settled)).rejects.toMatchObject({ code: 'delivery.failed', retryAfterMs: 7000, permanent: false });
    fake.failNext('conversations.history', 1, { error: 'missing_scope', needed: 'channels:history' });
    await expect(findSent()(delivery('k-1', post()), settled)).rejects.toMatchObject({ permanent: true, providerCode: 'missing_scope' });
  });
});
