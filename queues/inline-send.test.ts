/**
 * `Outbound.deliver`: the inline first attempt against a real Redis. A send within its limits
 * makes no job; a repeat is a duplicate; a destination over its limit queues the delivery behind
 * those waiting, in order; a provider method's limit holds across destinations and inline and queued
 * sends alike; a failed attempt is retried by the queue; a permanent one is final; a
 * send cut short by a crash is handed to the queue by the sweeper and never sent twice.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { waitFor } from '../test/support/wait-for.ts';
import { DeliveryError } from './delivery-error.ts';
import { createDeliveryFailures } from './delivery-failures.ts';
import { createDeliveryLedger } from './delivery-ledger.ts';
import { createInlineSend, outboxKeys } from './inline-send.ts';
import { sweepOutbox } from './outbox-sweeper.ts';
import { attemptRecorder, outboundHarness, prefetchingSender, scriptedSender, waitForCounts } from './outbound-test-kit.ts';
import type { OutboundDelivery } from './outbound-types.ts';
import { sampleDelivery, useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
const { outbound, inspector } = outboundHarness(resources, prefix);

async function outboxSize(redis: Redis): Promise<number> {
  return redis.zcard(outboxKeys(prefix()).due);
}

describe('Outbound.deliver', () => {
  it('sends within its limits at once, with no job, and reports the attempt; a repeat is a duplicate', async () => {
    const sender = scriptedSender(() => Promise.resolve({ providerMessageId: 'M1' }), { destinationRateLimit: { max: 3, durationMs: 3000 }, rateLimit: { max: 50, durationMs: 1000 } });
    const recorder = attemptRecorder();
    const redis = resources.redis('worker');
    const out = outbound(redis, { senders: { slack: sender }, onAttempt: recorder.onAttempt });
    expect(await out.deliver(sampleDelivery('slack', 'k1'))).toMatchObject({ duplicate: false });
    expect(await out.deliver(sampleDelivery('slack', 'k1'))).toMatchObject({ duplicate: true });
    expect(sender.calls.map((call) => call.key)).toEqual(['k1']);
    expect(recorder.outcomes('k1')).toEqual(['sent']);
    expect(await createDeliveryLedger({ redis, prefix: prefix() }).read('k1')).toMatchObject({ state: 'sent', sendCalls: 1, receipt: { providerMessageId: 'M1' } });
    expect(await outboxSize(redis)).toBe(0);
    expect(await inspector('slack').getJobCounts('waiting', 'completed', 'delayed')).toEqual({ waiting: 0, completed: 0, delayed: 0 });
  });

  it('starts the sender\'s own reads ahead of its claim, for the very delivery it then sends; a repeat is read for, not sent', async () => {
    const redis = resources.redis('worker');
    const sender = prefetchingSender(redis, prefix());
    const out = outbound(redis, { senders: { slack: sender } });
    await out.deliver(sampleDelivery('slack', 'k-pre'));
    await out.deliver(sampleDelivery('slack', 'k-pre'));
    expect(sender.prefetched).toHaveLength(2);
    expect(await sender.prefetched[0]?.entry).toBeUndefined();
    expect(await sender.prefetched[1]?.entry).toMatchObject({ state: 'sent' });
    expect(sender.sent).toHaveLength(1);
    expect(sender.sent[0]).toBe(sender.prefetched[0]?.delivery);
  });

  it('queues deliveries over the destination limit behind each other, and sends them in order', async () => {
    const sender = scriptedSender(() => Promise.resolve({}), { destinationRateLimit: { max: 1, durationMs: 300 } });
    const out = outbound(resources.redis('worker'), { senders: { sms: sender } });
    out.startWorkers();
    const keys = ['a', 'b', 'c', 'd'];
    for (const key of keys) await out.deliver(sampleDelivery('sms', key));
    await waitForCounts(inspector('sms'), { completed: 3 });
    expect(sender.calls.map((call) => call.key)).toEqual(keys);
    for (let index = 1; index < sender.calls.length; index += 1) {
      expect((sender.calls[index]?.at ?? 0) - (sender.calls[index - 1]?.at ?? 0)).toBeGreaterThan(250);
    }
  });

  it('counts inline and queued sends in one method window, across destinations, and keeps each destination in order', async () => {
    const windowMs = 400;
    const methodOf = (delivery: OutboundDelivery): string => (String(delivery.payload['text']).includes('edit') ? 'chat.update' : 'chat.postMessage');
    const sender = scriptedSender(() => Promise.resolve({}), { methodRateLimits: { 'chat.update': { max: 2, durationMs: windowMs } }, methodOf });
    const recorder = attemptRecorder();
    const out = outbound(resources.redis('worker'), { senders: { slack: sender }, onAttempt: recorder.onAttempt });
    out.startWorkers();
    const to = (address: string, key: string, text: string): OutboundDelivery => ({ ...sampleDelivery('slack', key), destination: { channel: 'slack', address }, payload: { text } });
    // Three edits in three conversations: two go at once, the third waits for the window.
    for (const [address, key] of [['C1', 'e1'], ['C2', 'e2'], ['C3', 'e3']] as const) await out.deliver(to(address, key, 'edit'));
    // A post is another method: it goes at once. A post behind the waiting edit in C3 waits behind it.
    await out.deliver(to('C4', 'p1', 'post'));
    await out.deliver(to('C3', 'p2', 'post'));
    await waitForCounts(inspector('slack'), { completed: 2 });
    const at = (key: string): number => sender.calls.find((call) => call.key === key)?.at ?? Number.NaN;
    expect(sender.calls.slice(0, 3).map((call) => call.key).sort()).toEqual(['e1', 'e2', 'p1']);
    expect(at('e3') - at('e1')).toBeGreaterThan(windowMs * 0.5);
    expect(at('p2')).toBeGreaterThanOrEqual(at('e3'));
    expect(recorder.events.find((event) => event.delivery.idempotencyKey === 'e3' && event.outcome === 'deferred')?.error?.message).toContain('chat.update 2 per 400 ms');
  });

  it('hands a failed attempt to the queue, which sends it; a permanent failure is final at once', async () => {
    const sender = scriptedSender((delivery, call) => {
      if (delivery.idempotencyKey === 'gone') return Promise.reject(new DeliveryError('unknown number', { permanent: true, providerCode: '21211' }));
      return call === 1 ? Promise.reject(new DeliveryError('busy', { status: 503 })) : Promise.resolve({ providerMessageId: 'later' });
    });
    const recorder = attemptRecorder();
    const redis = resources.redis('worker');
    const out = outbound(redis, { senders: { sms: sender }, onAttempt: recorder.onAttempt });
    out.startWorkers();
    await out.deliver(sampleDelivery('sms', 'flaky'));
    await out.deliver(sampleDelivery('sms', 'gone'));
    await waitForCounts(inspector('sms'), { completed: 1 });
    expect(recorder.outcomes('flaky')).toEqual(['retry', 'sent']);
    expect(recorder.outcomes('gone')).toEqual(['failed']);
    const failures = await createDeliveryFailures({ redis, prefix: prefix() }).list();
    expect(failures.map((failure) => [failure.idempotencyKey, failure.reason])).toEqual([['gone', 'permanent']]);
    expect(sender.calls.filter((call) => call.key === 'gone')).toHaveLength(1);
    expect(await outboxSize(redis)).toBe(0);
  });

  it('after a 429 holds the whole channel off: the next delivery, to anyone, waits in the queue for the Retry-After', async () => {
    const retryAfterMs = 600;
    const sender = scriptedSender(
      (delivery, call) => (delivery.idempotencyKey === 'first' && call === 1 ? Promise.reject(new DeliveryError('Too Many Requests', { rateLimited: true, status: 429, retryAfterMs })) : Promise.resolve({})),
      { rateLimit: { max: 100, durationMs: 1000 }, concurrency: 1 },
    );
    const recorder = attemptRecorder();
    const redis = resources.redis('worker');
    const out = outbound(redis, { senders: { slack: sender }, onAttempt: recorder.onAttempt });
    out.startWorkers();
    await out.deliver(sampleDelivery('slack', 'first'));
    await out.deliver({ ...sampleDelivery('slack', 'second'), destination: { channel: 'slack', address: 'C0OTHER' } });
    expect(sender.calls.map((call) => call.key)).toEqual(['first']);
    expect(recorder.outcomes('first')).toEqual(['retry']);
    await waitForCounts(inspector('slack'), { completed: 2 });
    const throttledAt = sender.calls[0]?.at ?? 0;
    for (const call of sender.calls.slice(1)) expect(call.at - throttledAt).toBeGreaterThanOrEqual(retryAfterMs * 0.9);
  });

  it('leaves a failed attempt the queue can no longer take (shutting down) to the sweeper of another process', async () => {
    const sender = scriptedSender((_delivery, call) => (call === 1 ? Promise.reject(new DeliveryError('busy', { status: 503 })) : Promise.resolve({ providerMessageId: 'later' })));
    let closing: Promise<void> | undefined;
    const leaving = outbound(resources.redis('worker'), {
      senders: { sms: sender },
      inlineLeaseMs: 200,
      // The process starts shutting down while it reports the failed attempt, so the queue refuses it.
      onAttempt: () => { closing = leaving.close(); return Promise.resolve(); },
    });
    await expect(leaving.deliver(sampleDelivery('sms', 'orphan'))).rejects.toMatchObject({ code: 'queue.closed' });
    await closing;
    const redis = resources.redis('worker');
    expect(await outboxSize(redis)).toBe(1);
    // No renewal keeps the entry from the sweeper: it reaches the queue once its lease ran out, and is sent once.
    const staying = outbound(redis, { senders: { sms: sender }, inlineLeaseMs: 200, sweepIntervalMs: 50 });
    staying.startWorkers();
    await waitForCounts(inspector('sms'), { completed: 1 });
    expect(sender.calls.map((call) => call.key)).toEqual(['orphan', 'orphan']);
    expect(await createDeliveryLedger({ redis, prefix: prefix() }).read('orphan')).toMatchObject({ state: 'sent', receipt: { providerMessageId: 'later' } });
    expect(await outboxSize(redis)).toBe(0);
  });

  it('keeps a failed attempt in the outbox until the queue has it, so a crash in between loses nothing', async () => {
    const redis = resources.redis('worker');
    const inline = createInlineSend({ redis, prefix: prefix(), leaseMs: 60_000, ledgerTtlMs: 60_000, lineGraceMs: 1000, retryDelayMs: () => 5 });
    const failing = scriptedSender(() => Promise.reject(new DeliveryError('busy', { status: 503 })));
    expect(await inline.attempt(sampleDelivery('sms', 'retry-me'), failing)).toMatchObject({ kind: 'queue', delayMs: 5 });
    expect(await outboxSize(redis)).toBe(1);
    expect(await createDeliveryLedger({ redis, prefix: prefix() }).read('retry-me')).toMatchObject({ state: 'failed' });
    await inline.release('retry-me');
    expect(await outboxSize(redis)).toBe(0);
  });

  it('leaves a send cut short in the outbox, which the sweeper hands to the queue once its lease ran out', async () => {
    const redis = resources.redis('worker');
    const sender = scriptedSender(() => Promise.resolve({}));
    // The dying process: its client is cut once the send is under way, so no renewal reaches Redis.
    const dyingRedis = resources.redis('worker');
    const crashing = createInlineSend({ redis: dyingRedis, prefix: prefix(), leaseMs: 50, ledgerTtlMs: 60_000, lineGraceMs: 1000, retryDelayMs: () => 0 });
    const dying = { ...sender, send: () => new Promise<never>(() => undefined) };
    void crashing.attempt(sampleDelivery('sms', 'cut'), dying);
    await waitFor(async () => (await outboxSize(redis)) === 1, 'the outbox entry');
    dyingRedis.disconnect();
    const out = outbound(redis, { senders: { sms: sender } });
    expect(await out.deliver(sampleDelivery('sms', 'cut'))).toMatchObject({ duplicate: true });
    const ledger = createDeliveryLedger({ redis, prefix: prefix() });
    const swept = { redis, prefix: prefix(), silence: { leaseMs: 50, mark: (key: string, at: number) => ledger.markSilent(key, at) }, enqueue: (delivery: Parameters<typeof out.enqueue>[0]) => out.enqueue(delivery) };
    await waitFor(async () => (await sweepOutbox(swept)) === 1, 'the sweep');
    expect(await outboxSize(redis)).toBe(0);
    // The hand-over says from when the dead sender sent nothing more, for the lookup to conclude sooner.
    expect(await ledger.begin('cut', 'look', false)).toMatchObject({ kind: 'unconfirmed', silentSince: expect.any(Number) as number });
    const job = await inspector('sms').getJobs(['waiting']);
    expect(job.map((entry) => (entry.data as { item: { idempotencyKey: string } }).item.idempotencyKey)).toEqual(['cut']);
    expect(sender.calls).toHaveLength(0);
  });

  it('renews the lease of a slow send, so the sweeper never takes a live send for dead', async () => {
    const redis = resources.redis('worker');
    let finish: (() => void) | undefined;
    const slow = scriptedSender(() => new Promise((resolve) => { finish = () => { resolve({ providerMessageId: 'SLOW' }); }; }));
    const inline = createInlineSend({ redis, prefix: prefix(), leaseMs: 100, ledgerTtlMs: 60_000, lineGraceMs: 1000, retryDelayMs: () => 0 });
    const sending = inline.attempt(sampleDelivery('sms', 'slow'), slow);
    await waitFor(async () => (await outboxSize(redis)) === 1, 'the outbox entry');
    const out = outbound(redis, { senders: { sms: slow } });
    // Sweeps until the deadline was pushed on past three lifetimes of the lease: none hands anything over.
    const firstDue = Number(await redis.zscore(outboxKeys(prefix()).due, 'slow'));
    let handed = 0;
    await waitFor(async () => {
      handed += await sweepOutbox({ redis, prefix: prefix(), enqueue: (delivery) => out.enqueue(delivery) });
      return Number(await redis.zscore(outboxKeys(prefix()).due, 'slow')) > firstDue + 300;
    }, 'three renewals');
    finish?.();
    expect(await sending).toMatchObject({ kind: 'sent' });
    expect(handed).toBe(0);
    expect(await outboxSize(redis)).toBe(0);
    expect(slow.calls).toHaveLength(1);
    expect(await inspector('sms').getJobs(['waiting', 'delayed', 'active'])).toHaveLength(0);
  });
});
