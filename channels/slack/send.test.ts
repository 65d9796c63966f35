import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { createSlackSender } from './send.ts';

const card = { op: 'post', channel: 'C0123ABC', teamId: 'T0001', threadTs: '1700000000.000100', text: 'Approval K7QX2M', key: 'approval:Zx4bQ2tGd1sQ9cYk3mWvTa' };
const delivery = (payload: Record<string, unknown>): OutboundDelivery => ({ channel: 'slack', destination: { channel: 'slack', address: 'C0123ABC' }, idempotencyKey: 'k-1', payload });

/** A Web API client whose `chat.postMessage` records each post and answers like Slack. */
function postingClient(): { client: WebClient; posts: unknown[] } {
  const posts: unknown[] = [];
  const client = { chat: { postMessage: (args: unknown) => { posts.push(args); return Promise.resolve({ ok: true, channel: 'C0123ABC', ts: '1700000000.000200' }); } } };
  return { client: client as unknown as WebClient, posts };
}

describe('the Slack sender', () => {
  it('remembers a posted card under its key, so it can be updated in place', async () => {
    const { client } = postingClient();
    const remembered: [string, unknown][] = [];
    const sender = createSlackSender({ client, store: { rememberMessage: (key, where) => { remembered.push([key, where]); return Promise.resolve(); }, messageOf: () => Promise.resolve(undefined) } });
    expect(await sender.send(delivery(card))).toEqual({ providerMessageId: '1700000000.000200', details: { channel: 'C0123ABC' } });
    expect(remembered).toEqual([['C0123ABC:approval:Zx4bQ2tGd1sQ9cYk3mWvTa', { channel: 'C0123ABC', ts: '1700000000.000200' }]]);
  });

  it('does not fail a post Slack took when remembering it fails: a retry would post the card twice', async () => {
    const { client, posts } = postingClient();
    const sender = createSlackSender({ client, store: { rememberMessage: () => Promise.reject(new Error('Redis is not answering')), messageOf: () => Promise.resolve(undefined) } });
    const receipt = await sender.send(delivery(card));
    expect(receipt).toEqual({ providerMessageId: '1700000000.000200', details: { channel: 'C0123ABC', notRemembered: 'Redis is not answering' } });
    expect(posts).toHaveLength(1);
  });

  it('names the Web API method of each payload and limits each as Slack\'s tiers do, with no limit for the whole workspace', () => {
    const sender = createSlackSender({ client: postingClient().client, store: { rememberMessage: () => Promise.resolve(), messageOf: () => Promise.resolve(undefined) } });
    const methodOf = (payload: Record<string, unknown>): string | undefined => sender.methodOf?.(delivery(payload));
    expect(methodOf(card)).toBe('chat.postMessage');
    expect(methodOf({ op: 'status', channel: 'C1', threadTs: '1.2', status: 'is thinking' })).toBe('assistant.threads.setStatus');
    expect(methodOf({ op: 'update', channel: 'C1', ts: '1.2', text: 'done' })).toBe('chat.update');
    expect(methodOf({ op: 'ephemeral', channel: 'C1', user: 'U1', text: 'only you' })).toBe('chat.postEphemeral');
    expect(methodOf({ op: 'toString' })).toBeUndefined();
    expect(sender.rateLimit).toBeUndefined();
    expect(sender.methodRateLimits).toEqual({ 'chat.postMessage': { max: 300, durationMs: 60_000 }, 'chat.update': { max: 50, durationMs: 60_000 }, 'chat.postEphemeral': { max: 100, durationMs: 60_000 } });
    // A status is never held back by a method limit: it would hold up the answer behind it.
    expect(sender.methodRateLimits?.['assistant.threads.setStatus']).toBeUndefined();
  });
});
