/**
 * Slack in Socket Mode end to end: the service, given `SLACK_APP_TOKEN`, opens a Socket Mode
 * connection to the fake Slack with the real `@slack/socket-mode` client and takes envelopes
 * through the same intake as the HTTP route. A DM is answered in its thread and its envelope
 * acked; a redelivered envelope (same event id) answers once; a click on an approval card decides
 * it; a refresh asked by Slack reconnects; a second process waits on the lease and takes over the
 * one connection when the first stops.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { blockActions, dmMessage, eventCallback, freshSlackTs } from '../fakes/slack-requests.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { waitFor } from '../support/wait-for.ts';
import { useSlackSwitchboard } from './slack-harness.ts';

const APP_TOKEN = 'xapp-1-A0FAKE01-1-socket-test';
const sb = useSlackSwitchboard({
  redisUrl: useRedis(),
  botToken: 'xoxb-socket-test-token',
  signingSecret: 'unused-in-socket-mode',
  appToken: APP_TOKEN,
  script: scenarioScript({
    hello: [() => reply(respond([part('response', 'Hello over the socket.')], 'complete'))],
    book: [
      () => reply(toolCall('book_flight', { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' })),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
  }),
});
const slack = () => sb().slack;

beforeAll(async () => {
  await waitFor(() => slack().sockets().open === 1, 'the socket open');
});

const inThread = (channel: string, threadTs: string) => slack().messages(channel).filter((message) => message.threadTs === threadTs);
const acked = (envelopeId: string): boolean => slack().acks().some((ack) => ack.envelopeId === envelopeId);
function pushEvent(event: object, eventId: string, retryAttempt = 0): string {
  return slack().pushEnvelope({ type: 'events_api', payload: eventCallback(event as { event_ts?: string }, { eventId }), retryAttempt, ...(retryAttempt === 0 ? {} : { retryReason: 'timeout' }) });
}

/** DMs `user` on the socket and waits for the answer in the thread. */
async function dmAnswered(user: string, channel: string, eventId: string): Promise<void> {
  const ts = freshSlackTs();
  const envelope = pushEvent(dmMessage({ user, text: 'hi #hello', channel, ts }), eventId);
  await waitFor(() => inThread(channel, ts).length === 1, `the answer to ${eventId}`, 20_000);
  expect(acked(envelope)).toBe(true);
}

describe('slack: Socket Mode', () => {
  it('connects with the app token and answers a DM in its thread, the envelope acked once enqueued', async () => {
    expect(slack().calls('apps.connections.open').map((call) => call.token)).toEqual([APP_TOKEN]);
    const ts = freshSlackTs();
    const envelope = pushEvent(dmMessage({ user: 'U0ADA0001', text: 'Hello? #hello', channel: 'D0ADA0001', ts }), 'Ev0SOCK00001');
    await waitFor(() => acked(envelope), 'the envelope acked');
    await waitFor(() => inThread('D0ADA0001', ts).length === 1, 'the answer in the thread');
    expect(inThread('D0ADA0001', ts)[0]?.text).toContain('Hello over the socket.');
    expect(slack().acks().find((ack) => ack.envelopeId === envelope)?.payload).toEqual({});
  });

  it('acks a redelivered envelope (same event id) and answers once', async () => {
    const ts = freshSlackTs();
    const event = dmMessage({ user: 'U0BOB0001', text: 'Twice? #hello', channel: 'D0BOB0001', ts });
    const first = pushEvent(event, 'Ev0SOCK00002');
    const again = pushEvent(event, 'Ev0SOCK00002', 1);
    await waitFor(() => acked(first) && acked(again), 'both envelopes acked');
    await waitFor(() => inThread('D0BOB0001', ts).length === 1, 'the answer');
    await dmAnswered('U0BOB0001', 'D0BOB0001', 'Ev0SOCK00003'); // a later message, answered after any second answer would have been
    expect(inThread('D0BOB0001', ts)).toHaveLength(1);
  });

  it('decides an approval from a click sent as an interactive envelope', async () => {
    const ts = freshSlackTs();
    pushEvent(dmMessage({ user: 'U0CAROL01', text: 'Book it #book', channel: 'D0CAROL01', ts }), 'Ev0SOCK00004');
    const hasButtons = (blocks: unknown): boolean => JSON.stringify(blocks ?? []).includes('approval.approve');
    await waitFor(() => inThread('D0CAROL01', ts).some((message) => hasButtons(message.blocks)), 'the approval card', 20_000);
    const card = inThread('D0CAROL01', ts).find((message) => hasButtons(message.blocks));
    const value = /"value":"(\{[^"]*(?:\\"[^"]*)*\})"/.exec(JSON.stringify(card?.blocks ?? []))?.[1]?.replace(/\\"/g, '"') ?? '{}';
    const payload = blockActions({ user: { id: 'U0CAROL01', team_id: 'T0FAKE01' }, actionId: 'approval.approve', value, channel: 'D0CAROL01', messageTs: card?.ts ?? '' });
    const envelope = slack().pushEnvelope({ type: 'interactive', payload, acceptsResponsePayload: false });
    await waitFor(() => acked(envelope), 'the click acked');
    await waitFor(() => inThread('D0CAROL01', ts).some((message) => (message.text ?? '').includes('Result:')), 'the confirmation in the thread', 20_000);
    await waitFor(() => slack().updates().some((update) => update.ts === card?.ts && JSON.stringify(update.blocks ?? []).includes('Approved')), 'the card updated in place');
  });

  it('reconnects when Slack asks for a fresh connection', async () => {
    const opened = slack().sockets().opened;
    slack().refreshSockets();
    await waitFor(() => slack().sockets().opened === opened + 1 && slack().sockets().open === 1, 'a new connection');
    await dmAnswered('U0DAN0001', 'D0DAN0001', 'Ev0SOCK00005');
  });

  it('keeps one connection across two processes: the second takes over when the first stops', async () => {
    const [first] = sb().services;
    const opened = slack().sockets().opened;
    await sb().startProcess('worker');
    await dmAnswered('U0EVE0001', 'D0EVE0001', 'Ev0SOCK00006'); // both processes run, the first holds the socket
    expect(slack().sockets()).toMatchObject({ open: 1, opened });
    await first?.close();
    await waitFor(() => slack().sockets().opened === opened + 1 && slack().sockets().open === 1, 'the second process connected', 20_000);
    await dmAnswered('U0EVE0001', 'D0EVE0001', 'Ev0SOCK00007');
    expect(slack().sockets().peak).toBe(1);
  });
});
