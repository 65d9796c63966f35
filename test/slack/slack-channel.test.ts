/**
 * The Slack channel end to end on the example app: signed events into the running service, the
 * real `@slack/web-api` client answering through a local fake of Slack's Web API. A person DMs
 * the bot and gets a threaded answer with the assistant status shown and cleared; a mention in a
 * channel starts a thread that continues without a mention; bots, edits, retries and redelivered
 * events start nothing twice; forged, stale and unsigned requests are refused; a booking shows a
 * Block Kit card, a stranger's click is refused (ephemeral, audited), the requester's Approve
 * updates the card in place and the confirmation arrives in the same thread, a second click is
 * told it was already decided; a 429 with Retry-After is waited out.
 */
import { describe, expect, it } from 'vitest';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { appMention, blockActions, botMessage, dmMessage, eventCallback, freshSlackTs, messageChanged, postSlackEvent, postSlackInteraction, threadReply, urlVerification } from '../fakes/slack-requests.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useSlackSwitchboard } from './slack-harness.ts';

const SECRET = 'slack-test-signing-secret';
const TEAM = 'T0FAKE01';
const sb = useSlackSwitchboard({
  redisUrl: useRedis(),
  botToken: 'xoxb-test-token',
  signingSecret: SECRET,
  script: scenarioScript({
    hello: [() => reply(respond([part('ack', 'Looking up flights to Paris.'), part('response', 'The **best** option is MW 304 & it leaves at 07:25, see [the fares](https://example.com/fares).')], 'complete'))],
    more: [() => reply(respond([part('response', 'Still here in the thread.')], 'complete'))],
    book: [
      () => reply(toolCall('book_flight', { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' })),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
  }),
});

const url = (): string => sb().eventsUrl;
let events = 0;
function send(event: object, extra: { timestamp?: number; signature?: string | null; retryNum?: number; eventId?: string } = {}) {
  events += 1;
  return postSlackEvent({ url: url(), signingSecret: SECRET, body: eventCallback(event as { event_ts?: string }, { eventId: extra.eventId ?? `Ev0TEST${String(events).padStart(5, '0')}` }), ...extra });
}
const inThread = (channel: string, threadTs: string) => sb().slack.messages(channel).filter((message) => message.threadTs === threadTs);
const textOf = (message: { text: string | undefined; blocks?: readonly unknown[] | undefined }): string => `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

/** Waits for the approval card in a thread; its message, its button value and the approval id. */
async function approvalCard(channel: string, ts: string): Promise<{ card: { ts: string } | undefined; value: string; approvalId: string }> {
  const hasButtons = (message: { blocks?: readonly unknown[] | undefined }): boolean => JSON.stringify(message.blocks ?? []).includes('approval.approve');
  await waitFor(() => inThread(channel, ts).some(hasButtons), 'the approval card');
  const card = inThread(channel, ts).find(hasButtons);
  const value = /"value":"(\{[^"]*(?:\\"[^"]*)*\})"/.exec(JSON.stringify(card?.blocks ?? []))?.[1]?.replace(/\\"/g, '"') ?? '{}';
  return { card, value, approvalId: String((JSON.parse(value) as { approvalId?: string }).approvalId) };
}

describe('slack: conversations', () => {
  it('answers url_verification, and refuses forged, stale and unsigned requests with nothing enqueued', async () => {
    const challenge = await postSlackEvent({ url: url(), signingSecret: SECRET, body: urlVerification('ch4ll3nge') });
    expect(challenge.status).toBe(200);
    expect(JSON.parse(challenge.body)).toEqual({ challenge: 'ch4ll3nge' });
    const calls = sb().fake.messageRequests.length;
    const event = dmMessage({ user: 'U0EVE0001', text: 'hi #hello', channel: 'D0EVE0001', ts: freshSlackTs() });
    expect((await send(event, { signature: 'v0=deadbeef' })).status).toBe(401);
    expect((await send(event, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
    expect((await send(event, { signature: null })).status).toBe(401);
    expect(sb().fake.messageRequests.length).toBe(calls);
  });

  it('answers a DM in its thread, with the status shown while it works and cleared after; a retry answers once', async () => {
    const ts = freshSlackTs();
    const event = dmMessage({ user: 'U0ADA0001', text: 'Flights to Paris? #hello', channel: 'D0ADA0001', ts });
    expect((await send(event, { eventId: 'Ev0DM000001' })).status).toBe(200);
    expect((await send(event, { eventId: 'Ev0DM000001', retryNum: 1 })).status).toBe(200);
    await waitFor(() => inThread('D0ADA0001', ts).length > 0, 'the answer in the thread');
    await waitFor(() => sb().slack.statuses(ts).some((status) => status.status === ''), 'the status cleared');
    const answer = inThread('D0ADA0001', ts)[0];
    expect(textOf(answer ?? { text: '' })).toContain('*best*');
    expect(textOf(answer ?? { text: '' })).toContain('&amp;');
    expect(textOf(answer ?? { text: '' })).toContain('<https://example.com/fares|the fares>');
    expect(sb().slack.statuses(ts)[0]?.status).not.toBe('');
    expect(inThread('D0ADA0001', ts)).toHaveLength(1);
  });

  it('a mention starts a thread that continues without a mention; bots and edits start nothing', async () => {
    const ts = freshSlackTs();
    await send(appMention({ user: 'U0BOB0001', text: 'Flights? #hello', channel: 'C0CHAN001', ts }));
    await waitFor(() => inThread('C0CHAN001', ts).length === 1, 'the answer to the mention');
    await send(threadReply({ user: 'U0BOB0001', text: 'And now? #more', channel: 'C0CHAN001', threadTs: ts, channelType: 'channel' }));
    await waitFor(() => inThread('C0CHAN001', ts).some((message) => (message.text ?? '').includes('Still here')), 'the answer in the thread');
    const requests = sb().fake.messageRequests.length;
    await send(botMessage({ botId: 'B0OTHER01', text: 'I am a bot #hello', channel: 'C0CHAN001', threadTs: ts }));
    await send(messageChanged({ channel: 'C0CHAN001', ts: freshSlackTs(), user: 'U0BOB0001', text: 'edited #hello', previousText: 'x', threadTs: ts }));
    await send(threadReply({ user: 'U0BOB0001', text: 'Unrelated thread #hello', channel: 'C0CHAN001', threadTs: '1600000000.000100', channelType: 'channel' }));
    await send(dmMessage({ user: 'U0BOB0001', text: 'marker #more', channel: 'D0BOB0001', ts: freshSlackTs() }));
    await waitFor(() => sb().slack.messages('D0BOB0001').length === 1, 'the marker answer');
    expect(sb().fake.messageRequests.length).toBe(requests + 1);
  });
});

describe('slack: approvals with buttons', () => {
  it('a stranger is refused and audited, the requester approves, the card updates, and the confirmation lands in the thread', async () => {
    const ts = freshSlackTs();
    await send(dmMessage({ user: 'U0CAROL01', text: 'Book it #book', channel: 'D0CAROL01', ts }));
    const { card, value, approvalId } = await approvalCard('D0CAROL01', ts);
    const click = (user: string, actionId: string) => postSlackInteraction({ url: url(), signingSecret: SECRET, payload: blockActions({ user: { id: user, team_id: TEAM }, actionId, value, channel: 'D0CAROL01', messageTs: card?.ts ?? '' }) });

    expect((await click('U0MALLORY', 'approval.approve')).status).toBe(200);
    await waitFor(() => sb().slack.ephemerals().some((message) => message.user === 'U0MALLORY' && (message.text ?? '').includes('not an approver')), 'the stranger told, privately');
    const audit = createApprovalStore({ redis: sb().redis, prefix: sb().prefix });
    expect((await audit.audit(approvalId)).some((entry) => entry.action === 'refused' && entry.by?.address === `${TEAM}:U0MALLORY`)).toBe(true);

    await click('U0CAROL01', 'approval.approve');
    await waitFor(() => inThread('D0CAROL01', ts).some((message) => (message.text ?? '').includes('Result:')), 'the confirmation in the thread');
    await waitFor(() => sb().slack.updates().some((update) => update.ts === card?.ts && textOf(update).includes('Approved')), 'the card updated in place');
    expect(textOf(sb().slack.updates().find((update) => update.ts === card?.ts) ?? { text: '' })).not.toContain('approval.approve');

    await click('U0CAROL01', 'approval.deny');
    await waitFor(() => sb().slack.ephemerals().some((message) => message.user === 'U0CAROL01' && /already/.test(message.text ?? '')), 'the second click told it was decided');
    expect((await audit.get(approvalId))?.status).toBe('granted');
  });

  it('a click after the approval expired is refused, privately, and nothing is decided', async () => {
    const ts = freshSlackTs();
    await send(dmMessage({ user: 'U0ERIN001', text: 'Book it #book', channel: 'D0ERIN001', ts }));
    const { card, value, approvalId } = await approvalCard('D0ERIN001', ts);
    const store = createApprovalStore({ redis: sb().redis, prefix: sb().prefix });
    await store.expire(approvalId);
    await postSlackInteraction({ url: url(), signingSecret: SECRET, payload: blockActions({ user: { id: 'U0ERIN001', team_id: TEAM }, actionId: 'approval.approve', value, channel: 'D0ERIN001', messageTs: card?.ts ?? '' }) });
    await waitFor(() => sb().slack.ephemerals().some((message) => message.user === 'U0ERIN001' && /expired/.test(message.text ?? '')), 'the late click told it expired');
    expect((await store.get(approvalId))?.status).toBe('expired');
  });

  it('waits out a 429 with Retry-After, then posts once', async () => {
    // Only this DM's post: an answer of an earlier test still on its way must not take the 429.
    sb().slack.failNext('chat.postMessage', 1, { status: 429, retryAfterSeconds: 1 }, (args) => args['channel'] === 'D0DAN0001');
    const ts = freshSlackTs();
    await send(dmMessage({ user: 'U0DAN0001', text: 'hello #more', channel: 'D0DAN0001', ts }));
    await waitFor(() => inThread('D0DAN0001', ts).length === 1, 'the answer after the 429');
    const posts = sb().slack.calls('chat.postMessage').filter((call) => call.args['channel'] === 'D0DAN0001');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect((posts.at(-1)?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });
});
