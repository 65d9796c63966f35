import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { DeliveryError } from './delivery-error.ts';
import { createDeliveryFailures } from './delivery-failures.ts';
import { createDeliveryLedger } from './delivery-ledger.ts';
import { attemptRecorder, outboundHarness, scriptedSender, waitForCounts } from './outbound-test-kit.ts';
import type { ChannelSender, OutboundDelivery, SendIntent, SentLookup } from './outbound-types.ts';
import { sampleDelivery, useTestResources } from './queue-test-kit.ts';
import { payloadExcerpt } from './unconfirmed-send.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
const { outbound, inspector } = outboundHarness(resources, prefix);

const trace = { sessionId: 'session-1', turnId: 'turn-1' };

function delivery(key: string): OutboundDelivery {
  return { ...sampleDelivery('chat', key), payload: { text: '  Your table\n is booked for 8 pm.  ' }, trace };
}

/** A sender whose `findSent` answers from `answers`, one per call (the last one repeats). */
function asking(answers: readonly (SentLookup | Error)[], settings: Omit<ChannelSender, 'send' | 'findSent'> = {}): ReturnType<typeof scriptedSender> & { readonly asked: SendIntent[] } {
  const asked: SendIntent[] = [];
  const sender = scriptedSender(() => Promise.resolve({ providerMessageId: 'sent-now' }), {
    ...settings,
    findSent(_delivery, intent) {
      asked.push(intent);
      const answer = answers[Math.min(asked.length, answers.length) - 1];
      if (answer === undefined) throw new Error('no answer scripted');
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  });
  return Object.assign(sender, { asked });
}

/** Leaves an intent without an outcome for `key`, as a worker that died mid-send does. */
async function openIntent(key: string): Promise<number> {
  const ledger = createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() });
  await ledger.begin(key, 'dead-job', false);
  const seen = await ledger.begin(key, 'dead-job', false);
  if (seen.kind !== 'unconfirmed') throw new Error('expected an open intent');
  return seen.since;
}

async function run(sender: ChannelSender, key: string, expected: { completed?: number; failed?: number }): Promise<ReturnType<typeof attemptRecorder>> {
  const recorder = attemptRecorder();
  const out = outbound(resources.redis('worker'), { senders: { chat: sender }, onAttempt: recorder.onAttempt, attempts: 3, backoffDelayMs: 5 });
  out.startWorkers();
  await out.enqueue(delivery(key));
  await waitForCounts(inspector('chat'), expected);
  return recorder;
}

describe('a delivery whose earlier send has no recorded outcome', () => {
  it('completes with what the provider found, without sending, and keeps that receipt', async () => {
    const since = await openIntent('k-found');
    const sender = asking([{ kind: 'sent', receipt: { providerMessageId: 'found-1' } }]);
    const recorder = await run(sender, 'k-found', { completed: 1 });
    expect(sender.calls).toEqual([]);
    expect(sender.asked).toEqual([{ since }]);
    expect(recorder.events).toMatchObject([{ outcome: 'sent', receipt: { providerMessageId: 'found-1', details: { foundAtProvider: true } } }]);
    const entry = await createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() }).read('k-found');
    expect(entry).toMatchObject({ state: 'sent', receipt: { providerMessageId: 'found-1' }, sendCalls: 1 });
  });

  it('sends once when the provider does not have it', async () => {
    await openIntent('k-absent');
    const sender = asking([{ kind: 'absent' }]);
    await run(sender, 'k-absent', { completed: 1 });
    expect(sender.calls.map((call) => call.key)).toEqual(['k-absent']);
    const entry = await createDeliveryLedger({ redis: resources.redis('worker'), prefix: prefix() }).read('k-absent');
    expect(entry).toMatchObject({ state: 'sent', receipt: { providerMessageId: 'sent-now' }, sendCalls: 2 });
  });

  it('asks again after the wait the provider needs, and after a failed look-up', async () => {
    await openIntent('k-later');
    const sender = asking([{ kind: 'pending', retryAfterMs: 10, reason: 'too soon' }, new DeliveryError('Slack could not be reached'), { kind: 'absent' }], {});
    const recorder = await run(sender, 'k-later', { completed: 1 });
    expect(sender.asked).toHaveLength(3);
    expect(recorder.outcomes('k-later')).toEqual(['retry', 'retry', 'sent']);
    expect(sender.calls).toHaveLength(1);
  });

  it('is failed for good as unconfirmed when the provider cannot tell, with a note for the session', async () => {
    await openIntent('k-unknown');
    const sender = asking([{ kind: 'unknown', reason: 'Slack keeps no record of an ephemeral message' }]);
    const recorder = await run(sender, 'k-unknown', { failed: 1 });
    expect(sender.calls).toEqual([]);
    expect(recorder.outcomes('k-unknown')).toEqual(['failed']);
    const failures = createDeliveryFailures({ redis: resources.redis('worker'), prefix: prefix() });
    const [record] = await failures.list();
    expect(record).toMatchObject({ idempotencyKey: 'k-unknown', reason: 'unconfirmed', trace });
    expect(record?.message).toContain('Slack keeps no record of an ephemeral message');
    expect(await failures.takeForSession('session-1')).toMatchObject([
      { sessionId: 'session-1', idempotencyKey: 'k-unknown', channel: 'chat', excerpt: 'Your table is booked for 8 pm.' },
    ]);
  });

  it('is sent again when the provider cannot tell and the channel is at-least-once', async () => {
    await openIntent('k-again');
    const sender = asking([{ kind: 'unknown', reason: 'no record' }], { unconfirmed: 'at-least-once' });
    await run(sender, 'k-again', { completed: 1 });
    expect(sender.calls).toHaveLength(1);
  });

  it('is failed as unconfirmed when the look-up still fails on the last attempt', async () => {
    await openIntent('k-down');
    const sender = asking([new DeliveryError('Twilio could not be reached')]);
    const recorder = await run(sender, 'k-down', { failed: 1 });
    expect(recorder.outcomes('k-down')).toEqual(['retry', 'retry', 'failed']);
    expect(sender.calls).toEqual([]);
    const [record] = await createDeliveryFailures({ redis: resources.redis('worker'), prefix: prefix() }).list();
    expect(record).toMatchObject({ reason: 'unconfirmed', attempts: 3 });
    expect(record?.message).toContain('Twilio could not be reached');
  });
});

describe('payloadExcerpt', () => {
  it('takes the first text field of the payload or of its message, collapsed and cut', () => {
    expect(payloadExcerpt({ op: 'post', text: 'Hello\n\nthere' })).toBe('Hello there');
    expect(payloadExcerpt({ to: '+15550100', body: 'Code 1234' })).toBe('Code 1234');
    expect(payloadExcerpt({ kind: 'answer', message: { kind: 'text', text: 'From WhatsApp' } })).toBe('From WhatsApp');
    expect(payloadExcerpt({ op: 'status', status: '' })).toBeUndefined();
    const long = payloadExcerpt({ text: 'x'.repeat(500) });
    expect(long).toHaveLength(200);
    expect(long?.endsWith('…')).toBe(true);
  });
});
