import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { DeliveryError } from './delivery-error.ts';
import { createDeliveryLedger } from './delivery-ledger.ts';
import { outboundJobId } from './job-ids.ts';
import { createOutbound, outboundQueueName } from './outbound-queue.ts';
import type { ChannelRateLimit } from './outbound-types.ts';
import { outboundHarness, prefetchingSender, scriptedSender, waitForCounts } from './outbound-test-kit.ts';
import { redisOptionsOf, sampleDelivery, useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

const { outbound, inspector } = outboundHarness(resources, prefix);

describe('createOutbound', () => {
  it('enqueues a delivery once per idempotency key, and sends it once', async () => {
    const sender = scriptedSender(() => Promise.resolve({ providerMessageId: 'SM1' }));
    const out = outbound(resources.redis('worker'), { senders: { web: sender } });

    const first = await out.enqueue(sampleDelivery('web', 'turn-1/part-0/web:c1'));
    const again = await out.enqueue(sampleDelivery('web', 'turn-1/part-0/web:c1'));
    expect(first).toEqual({ jobId: outboundJobId('turn-1/part-0/web:c1'), duplicate: false });
    expect(first.jobId).toMatch(/^out-[0-9a-f]{64}$/);
    expect(again).toEqual({ jobId: first.jobId, duplicate: true });

    out.startWorkers();
    out.startWorkers();
    const queue = inspector('web');
    await waitForCounts(queue, { completed: 1 });
    expect((await out.enqueue(sampleDelivery('web', 'turn-1/part-0/web:c1'))).duplicate).toBe(true);
    expect(sender.calls).toHaveLength(1);
    expect((await queue.getJob(first.jobId))?.returnvalue).toEqual({ providerMessageId: 'SM1' });
  });

  it('starts the sender\'s own reads for a queued delivery before it records the intent, for the very delivery it sends', async () => {
    const redis = resources.redis('worker');
    const sender = prefetchingSender(redis, prefix());
    const out = outbound(redis, { senders: { web: sender } });
    await out.enqueue(sampleDelivery('web', 'turn-2/part-0/web:c1'));
    out.startWorkers();
    await waitForCounts(inspector('web'), { completed: 1 });
    expect(sender.prefetched).toHaveLength(1);
    expect(await sender.prefetched[0]?.entry).toBeUndefined();
    expect(sender.sent).toHaveLength(1);
    expect(sender.sent[0]).toBe(sender.prefetched[0]?.delivery);
  });

  it('retries a send that failed twice with 503 and sends it once', async () => {
    const sender = scriptedSender((_delivery, call) =>
      call <= 2 ? Promise.reject(new DeliveryError('Service Unavailable', { status: 503 })) : Promise.resolve({ providerMessageId: 'ok' }),
    );
    const redis = resources.redis('worker');
    const out = outbound(redis, { senders: { sms: sender } });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('sms', 'k-503'));

    const queue = inspector('sms');
    await waitForCounts(queue, { completed: 1, failed: 0 });
    expect(sender.calls).toHaveLength(3);
    const job = await queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(3);
    const entry = await createDeliveryLedger({ redis, prefix: prefix() }).read('k-503');
    expect(entry).toMatchObject({ state: 'sent', sendCalls: 3, receipt: { providerMessageId: 'ok' } });
  });

  it('retries any other rejection of the sender too', async () => {
    const sender = scriptedSender((_delivery, call) =>
      call === 1 ? Promise.reject(new Error('socket hang up')) : Promise.resolve({}),
    );
    const out = outbound(resources.redis('worker'), { senders: { web: sender } });
    out.startWorkers();
    await out.enqueue(sampleDelivery('web', 'k-other'));
    await waitForCounts(inspector('web'), { completed: 1 });
    expect(sender.calls).toHaveLength(2);
  });

  it('waits at least Retry-After before the next attempt', async () => {
    const retryAfterMs = 800;
    const sender = scriptedSender((_delivery, call) =>
      call === 1 ? Promise.reject(new DeliveryError('Slow down', { status: 503, retryAfterMs })) : Promise.resolve({}),
    );
    const out = outbound(resources.redis('worker'), { senders: { email: sender }, backoffDelayMs: 10 });
    out.startWorkers();
    await out.enqueue(sampleDelivery('email', 'k-retry-after'));

    await waitForCounts(inspector('email'), { completed: 1 });
    const [first, second] = sender.calls;
    expect(sender.calls).toHaveLength(2);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(retryAfterMs * 0.9);
  });

  it('stops at a permanent failure and keeps the job in failed with its reason', async () => {
    const sender = scriptedSender(() => Promise.reject(new DeliveryError('21211 invalid To number', { permanent: true, status: 400 })));
    const redis = resources.redis('worker');
    const out = outbound(redis, { senders: { sms: sender } });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('sms', 'k-permanent'));

    const queue = inspector('sms');
    await waitForCounts(queue, { failed: 1 });
    const job = await queue.getJob(jobId);
    expect(job?.failedReason).toBe('delivery.permanent: 21211 invalid To number');
    expect(job?.attemptsMade).toBe(1);
    expect(sender.calls).toHaveLength(1);
    expect(await createDeliveryLedger({ redis, prefix: prefix() }).read('k-permanent')).toMatchObject({
      state: 'failed',
      lastError: '21211 invalid To number',
    });
  });

  it('keeps a job that ran out of attempts in failed', async () => {
    const sender = scriptedSender(() => Promise.reject(new DeliveryError('Bad Gateway', { status: 502 })));
    const out = outbound(resources.redis('worker'), { senders: { web: sender }, attempts: 3, backoffDelayMs: 5 });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('web', 'k-exhausted'));
    const queue = inspector('web');
    await waitForCounts(queue, { failed: 1 });
    expect(sender.calls).toHaveLength(3);
    expect((await queue.getJob(jobId))?.failedReason).toBe('Bad Gateway');
  });

  it('does not send again when the worker dies after the send but before completing the job', async () => {
    const redis = resources.redis('worker');
    // The send succeeds, but the job lock is gone by the time the worker tries to complete the job
    // (as when the process dies right after the provider accepted): completing fails, the job stays
    // active without a lock, and the stalled-job check hands it to a worker again.
    const sender = scriptedSender(async (delivery) => {
      const jobLockKey = `${prefix()}:${outboundQueueName('web')}:${outboundJobId(delivery.idempotencyKey)}:lock`;
      await redis.del(jobLockKey);
      return { providerMessageId: 'sent-before-crash' };
    });
    const out = outbound(redis, { senders: { web: sender }, jobLockDurationMs: 1000, stalledIntervalMs: 200 });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('web', 'k-crash'));

    const queue = inspector('web');
    await waitForCounts(queue, { completed: 1 });
    const job = await queue.getJob(jobId);
    expect(job?.returnvalue).toEqual({ providerMessageId: 'sent-before-crash' });
    expect(job?.attemptsStarted).toBeGreaterThanOrEqual(2);
    expect(sender.calls).toHaveLength(1);
  });

  it('completes without sending when the ledger already holds a receipt', async () => {
    const redis = resources.redis('worker');
    const ledger = createDeliveryLedger({ redis, prefix: prefix() });
    await ledger.begin('k-receipt', 'earlier-job', false);
    await ledger.recordReceipt('k-receipt', { providerMessageId: 'earlier' });
    const sender = scriptedSender();
    const out = outbound(redis, { senders: { web: sender } });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('web', 'k-receipt'));

    const queue = inspector('web');
    await waitForCounts(queue, { completed: 1 });
    expect(sender.calls).toHaveLength(0);
    expect((await queue.getJob(jobId))?.returnvalue).toEqual({ providerMessageId: 'earlier' });
  });

  it('fails, without sending, a delivery whose earlier send has an unknown outcome', async () => {
    const redis = resources.redis('worker');
    await createDeliveryLedger({ redis, prefix: prefix() }).begin('k-unknown', 'earlier-job', false);
    const sender = scriptedSender();
    const out = outbound(redis, { senders: { web: sender } });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('web', 'k-unknown'));

    const queue = inspector('web');
    await waitForCounts(queue, { failed: 1 });
    expect(sender.calls).toHaveLength(0);
    const job = await queue.getJob(jobId);
    expect(job?.failedReason).toMatch(/^delivery\.failed: an earlier attempt may have sent this delivery/);
    expect(job?.attemptsMade).toBe(1);
  });

  it('sends again after an unknown outcome when the provider dedupes by idempotency key', async () => {
    const redis = resources.redis('worker');
    await createDeliveryLedger({ redis, prefix: prefix() }).begin('k-idempotent', 'earlier-job', false);
    const sender = scriptedSender(() => Promise.resolve({ providerMessageId: 'deduped-by-provider' }), { providerIdempotent: true });
    const out = outbound(redis, { senders: { sms: sender } });
    out.startWorkers();
    await out.enqueue(sampleDelivery('sms', 'k-idempotent'));
    await waitForCounts(inspector('sms'), { completed: 1 });
    expect(sender.calls).toHaveLength(1);
  });

  it('keeps to the channel rate limit', async () => {
    const rateLimit: ChannelRateLimit = { max: 2, durationMs: 200 };
    const sender = scriptedSender(() => Promise.resolve({}), { rateLimit, concurrency: 4 });
    const out = outbound(resources.redis('worker'), { senders: { sms: sender } });
    for (let i = 0; i < 6; i += 1) await out.enqueue(sampleDelivery('sms', `k-rate-${i}`));
    out.startWorkers();

    await waitForCounts(inspector('sms'), { completed: 6 });
    const times = sender.calls.map((call) => call.at);
    const elapsed = Math.max(...times) - Math.min(...times);
    // 6 sends at 2 per 200 ms need at least two more windows after the first.
    expect(elapsed).toBeGreaterThanOrEqual(400 * 0.85);
  });

  it('holds off the whole rate-limited channel for Retry-After after a 429', async () => {
    const retryAfterMs = 700;
    const sender = scriptedSender(
      (delivery, call) =>
        delivery.idempotencyKey === 'k-429' && call === 1
          ? Promise.reject(new DeliveryError('Too Many Requests', { rateLimited: true, status: 429, retryAfterMs }))
          : Promise.resolve({}),
      { rateLimit: { max: 100, durationMs: 1000 }, concurrency: 1 },
    );
    const out = outbound(resources.redis('worker'), { senders: { slack: sender } });
    await out.enqueue(sampleDelivery('slack', 'k-429'));
    await out.enqueue(sampleDelivery('slack', 'k-next'));
    out.startWorkers();

    await waitForCounts(inspector('slack'), { completed: 2 });
    const throttledAt = sender.calls[0]?.at ?? 0;
    const next = sender.calls.find((call) => call.key === 'k-next');
    expect(sender.calls[0]?.key).toBe('k-429');
    expect((next?.at ?? 0) - throttledAt).toBeGreaterThanOrEqual(retryAfterMs * 0.9);
  });

  it('rejects deliveries for channels without a sender, and invalid channel ids', async () => {
    const out = outbound(resources.redis('producer'), { senders: { web: scriptedSender() } });
    await expect(out.enqueue(sampleDelivery('fax', 'k'))).rejects.toMatchObject({ code: 'config.invalid' });
    expect(() => createOutbound({ connection: resources.redis('producer'), senders: { 'bad:name': scriptedSender() } })).toThrow(
      SwitchboardError,
    );
  });

  it('rejects enqueue and startWorkers after close, and closes clients it opened', async () => {
    const sender = scriptedSender();
    const out = createOutbound({ connection: redisOptionsOf(redisUrl()), prefix: prefix(), senders: { web: sender } });
    out.startWorkers();
    await out.enqueue(sampleDelivery('web', 'k-close'));
    await waitForCounts(inspector('web'), { completed: 1 });
    await out.close();
    await out.close();
    await expect(out.enqueue(sampleDelivery('web', 'k-late'))).rejects.toMatchObject({ code: 'queue.closed' });
    expect(() => {
      out.startWorkers();
    }).toThrow(SwitchboardError);
  });
});

describe('createOutbound: concurrency', () => {
  it('sends to several destinations at once, but to one destination one at a time and in order', async () => {
    let inFlight = 0;
    let most = 0;
    let mostToOneAddress = 0;
    const perAddress = new Map<string, number>();
    const sender = scriptedSender(async (delivery) => {
      const address = delivery.destination.address;
      inFlight += 1;
      most = Math.max(most, inFlight);
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      // Recorded, not asserted here: a throw in the sender would only make a retried delivery.
      mostToOneAddress = Math.max(mostToOneAddress, perAddress.get(address) ?? 0);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      perAddress.set(address, (perAddress.get(address) ?? 1) - 1);
      inFlight -= 1;
      return {};
    }, { concurrency: 4 });
    const out = outbound(resources.redis('worker'), { senders: { sms: sender } });
    const keys: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const address of ['+15550100', '+15550101', '+15550102']) {
        const key = `${address}-${String(round)}`;
        keys.push(key);
        await out.enqueue({ ...sampleDelivery('sms', key), destination: { channel: 'sms', address } });
      }
    }
    out.startWorkers();
    await waitForCounts(inspector('sms'), { completed: 9 });
    expect(most).toBeGreaterThan(1);
    expect(mostToOneAddress).toBe(1);
    expect(sender.calls).toHaveLength(9);
    for (const address of ['+15550100', '+15550101', '+15550102']) {
      const order = sender.calls.map((call) => call.key).filter((key) => key.startsWith(address));
      expect(order).toEqual([0, 1, 2].map((round) => `${address}-${String(round)}`));
    }
  });
});
