import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { DeliveryError } from './delivery-error.ts';
import { outboundJobId } from './job-ids.ts';
import { attemptRecorder, outboundHarness, scriptedSender, waitForCounts } from './outbound-test-kit.ts';
import type { OutboundDelivery } from './outbound-types.ts';
import { sampleDelivery, useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
const { outbound, inspector } = outboundHarness(resources, prefix);

/** Slack between the limiter's grant and the sender's timestamp, in milliseconds. */
const TOLERANCE_MS = 25;

function to(address: string, key: string): OutboundDelivery {
  return { ...sampleDelivery('slack', key), destination: { channel: 'slack', address } };
}

describe('per-destination rate limit', () => {
  it('spaces one destination by its window, lets others pass, and uses no attempts', async () => {
    const windowMs = 500;
    const recorder = attemptRecorder();
    const sender = scriptedSender(() => Promise.resolve({}), { destinationRateLimit: { max: 1, durationMs: windowMs } });
    const out = outbound(resources.redis('worker'), { senders: { slack: sender }, onAttempt: recorder.onAttempt });
    for (const key of ['a1', 'a2', 'a3']) await out.enqueue(to('C-A', key));
    await out.enqueue(to('C-B', 'b1'));
    out.startWorkers();

    const queue = inspector('slack');
    await waitForCounts(queue, { completed: 4 });
    const at = (key: string): number => sender.calls.find((call) => call.key === key)?.at ?? Number.NaN;
    expect(sender.calls).toHaveLength(4);
    expect(sender.calls.map((call) => call.key).filter((key) => key.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(at('b1')).toBeLessThan(at('a2'));
    expect(at('a2') - at('a1')).toBeGreaterThanOrEqual(windowMs - TOLERANCE_MS);
    expect(at('a3') - at('a2')).toBeGreaterThanOrEqual(windowMs - TOLERANCE_MS);
    for (const key of ['a1', 'a2', 'a3', 'b1']) {
      expect((await queue.getJob(outboundJobId(key)))?.attemptsMade).toBe(1);
    }
    expect(recorder.outcomes('b1')).toEqual(['sent']);
    for (const key of ['a2', 'a3']) {
      const events = recorder.events.filter((event) => event.delivery.idempotencyKey === key);
      expect(events.at(-1)?.outcome).toBe('sent');
      expect(events.slice(0, -1).every((event) => event.outcome === 'deferred' && event.nextAttemptAt !== undefined)).toBe(true);
      expect(events.length).toBeGreaterThan(1);
      expect(events.every((event) => event.attempt === 1)).toBe(true);
    }
  });

  it('holds across workers on separate Redis connections', async () => {
    const windowMs = 300;
    const limit = { max: 1, durationMs: windowMs };
    const senders = [
      scriptedSender(() => Promise.resolve({}), { destinationRateLimit: limit, concurrency: 3 }),
      scriptedSender(() => Promise.resolve({}), { destinationRateLimit: limit, concurrency: 3 }),
    ];
    const [first, second] = senders.map((sender) => outbound(resources.redis('worker'), { senders: { slack: sender } }));
    for (const key of ['a1', 'a2', 'a3', 'a4']) await first?.enqueue(to('C-A', key));
    first?.startWorkers();
    second?.startWorkers();

    await waitForCounts(inspector('slack'), { completed: 4 });
    const times = senders.flatMap((sender) => sender.calls.map((call) => call.at)).sort((a, b) => a - b);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i += 1) {
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(windowMs - TOLERANCE_MS);
    }
  });
});

describe('Retry-After', () => {
  it('does not try again before the retryAfterMs of a 429, and reports when it will', async () => {
    const retryAfterMs = 1200;
    const recorder = attemptRecorder();
    const sender = scriptedSender((_delivery, call) =>
      call === 1
        ? Promise.reject(new DeliveryError('Too Many Requests', { rateLimited: true, status: 429, retryAfterMs }))
        : Promise.resolve({ providerMessageId: 'M2' }),
    );
    const out = outbound(resources.redis('worker'), { senders: { sms: sender }, backoffDelayMs: 10, onAttempt: recorder.onAttempt });
    out.startWorkers();
    const failedAt = Date.now();
    const { jobId } = await out.enqueue(sampleDelivery('sms', 'k-429'));

    const queue = inspector('sms');
    await waitForCounts(queue, { completed: 1 });
    const [firstCall, secondCall] = sender.calls;
    expect(sender.calls).toHaveLength(2);
    expect((secondCall?.at ?? 0) - (firstCall?.at ?? 0)).toBeGreaterThanOrEqual(retryAfterMs - 5);
    expect((await queue.getJob(jobId))?.attemptsMade).toBe(2);
    const [retry, sent] = recorder.events;
    expect(retry).toMatchObject({ outcome: 'retry', attempt: 1, error: { code: 'delivery.rate_limited', status: 429, retryAfterMs } });
    expect(retry?.nextAttemptAt).toBeGreaterThanOrEqual(failedAt + retryAfterMs);
    expect(sent).toMatchObject({ outcome: 'sent', attempt: 2, receipt: { providerMessageId: 'M2' } });
  });
});
