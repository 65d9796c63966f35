import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from './fake-slack-types.ts';
import { startFakeSlack } from './fake-slack.ts';

const TOKEN = 'xoxb-fake-history';
let fake: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  fake = await startFakeSlack({ botToken: TOKEN, tsFrom: 'clock' });
  client = new WebClient(TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
});

const metadata = { event_type: 'test_event', event_payload: { id: 'x-1' } };

describe('the fake Slack history', () => {
  it('lists top-level posts newest first, with metadata only when asked, and pages with cursors', async () => {
    const before = Date.now() / 1000;
    const root = await client.chat.postMessage({ channel: 'C0HIST001', text: 'first', metadata });
    await client.chat.postMessage({ channel: 'C0HIST001', text: 'in the thread', thread_ts: root.ts ?? '' });
    await client.chat.postMessage({ channel: 'C0HIST001', text: 'second' });
    await client.chat.postMessage({ channel: 'C0HIST002', text: 'elsewhere' });
    expect(Number(root.ts)).toBeGreaterThanOrEqual(Math.floor(before));

    const first = await client.conversations.history({ channel: 'C0HIST001', limit: 1 });
    expect(first.messages?.map((message) => message.text)).toEqual(['second']);
    expect(first.has_more).toBe(true);
    const next = await client.conversations.history({ channel: 'C0HIST001', limit: 1, include_all_metadata: true, cursor: first.response_metadata?.next_cursor ?? '' });
    expect(next.messages?.map((message) => [message.text, message.metadata])).toEqual([['first', metadata]]);
    expect(next.response_metadata?.next_cursor).toBe('');
    expect((await client.conversations.history({ channel: 'C0HIST001' })).messages?.[1]).not.toHaveProperty('metadata');
    expect((await client.conversations.history({ channel: 'C0HIST001', oldest: root.ts ?? '' })).messages?.map((message) => message.text)).toEqual(['second']);
    expect((await client.conversations.history({ channel: 'C0HIST001', oldest: root.ts ?? '', inclusive: true })).messages).toHaveLength(2);
  });

  it('lists a thread, its parent first, and opens the DM of a user a post went to', async () => {
    const root = await client.chat.postMessage({ channel: 'C0HIST001', text: 'parent' });
    await client.chat.postMessage({ channel: 'C0HIST001', text: 'reply 1', thread_ts: root.ts ?? '' });
    await client.chat.postMessage({ channel: 'C0HIST001', text: 'reply 2', thread_ts: root.ts ?? '' });
    const thread = await client.conversations.replies({ channel: 'C0HIST001', ts: root.ts ?? '' });
    expect(thread.messages?.map((message) => message.text)).toEqual(['parent', 'reply 1', 'reply 2']);
    // A thread the fake did not start is a person's message; with `threadParents: 'posted'` it does not exist.
    const personal = await client.conversations.replies({ channel: 'C0HIST001', ts: '1700000000.000001' });
    expect(personal.messages?.map((message) => [message.user, message.ts])).toEqual([['U0PERSON00', '1700000000.000001']]);
    const strict = await startFakeSlack({ botToken: TOKEN, threadParents: 'posted' });
    try {
      const strictClient = new WebClient(TOKEN, { slackApiUrl: strict.url, retryConfig: { retries: 0 } });
      await expect(strictClient.conversations.replies({ channel: 'C0HIST001', ts: '1700000000.000001' })).rejects.toMatchObject({ data: { error: 'thread_not_found' } });
    } finally {
      await strict.close();
    }

    const dm = await client.chat.postMessage({ channel: 'U0PERSON01', text: 'to a person' });
    const opened = await client.conversations.open({ users: 'U0PERSON01' });
    expect(opened.channel?.id).toBe(dm.channel);
    expect((await client.conversations.history({ channel: opened.channel?.id ?? '' })).messages?.map((message) => message.text)).toEqual(['to a person']);
  });

  it('holds the answer of a matching call that took effect until released', async () => {
    fake.holdNext('chat.postMessage', 1, (args) => args['text'] === 'held');
    await client.chat.postMessage({ channel: 'C0HIST001', text: 'not held' });
    const posting = client.chat.postMessage({ channel: 'C0HIST001', text: 'held' });
    await expect.poll(() => fake.heldCount()).toBe(1);
    expect(fake.messages().map((message) => message.text)).toEqual(['not held', 'held']);
    fake.releaseHeld();
    expect((await posting).ok).toBe(true);
    expect(fake.heldCount()).toBe(0);
  });
});
