import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { DeliveryError } from './delivery-error.ts';
import { createDeliveryFailures } from './delivery-failures.ts';
import { createDeliveryLedger } from './delivery-ledger.ts';
import { outboundJobId } from './job-ids.ts';
import type { OutboundJobData } from './outbound-processor.ts';
import { outboundQueueName } from './outbound-queue.ts';
import { attemptRecorder, outboundHarness, scriptedSender, waitForCounts } from './outbound-test-kit.ts';
import type { OutboundDelivery } from './outbound-types.ts';
import { sampleDelivery, useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
const { outbound, inspector } = outboundHarness(resources, prefix);

const trace = { sessionId: 'session-1', turnId: 'turn-7' };

function traced(channel: string, key: string): OutboundDelivery {
  return { ...sampleDelivery(channel, key), trace };
}

describe('onAttempt', () => {
  it('reports a retry and then the send, each with the delivery and its trace', async () => {
    const recorder = attemptRecorder();
    const sender = scriptedSender((_delivery, call) =>
      call === 1 ? Promise.reject(new DeliveryError('Service Unavailable', { status: 503 })) : Promise.resolve({ providerMessageId: 'SM2' }),
    );
    const out = outbound(resources.redis('worker'), { senders: { sms: sender }, onAttempt: recorder.onAttempt });
    out.startWorkers();
    await out.enqueue(traced('sms', 'k-retry'));

    await waitForCounts(inspector('sms'), { completed: 1 });
    expect(recorder.events).toMatchObject([
      { outcome: 'retry', attempt: 1, error: { code: 'delivery.failed', message: 'Service Unavailable', status: 503 } },
      { outcome: 'sent', attempt: 2, receipt: { providerMessageId: 'SM2' } },
    ]);
    expect(recorder.events[0]?.nextAttemptAt).toEqual(expect.any(Number));
    expect(recorder.events.map((event) => event.delivery.trace)).toEqual([trace, trace]);
    const job: Job<OutboundJobData> | undefined = await inspector('sms').getJob(outboundJobId('k-retry'));
    expect(job?.data.item.trace).toEqual(trace);
  });

  it('does not fail the delivery when the callback throws, and passes the error to onError', async () => {
    const errors: Error[] = [];
    const sender = scriptedSender();
    const out = outbound(resources.redis('worker'), {
      senders: { web: sender },
      onAttempt: () => Promise.reject(new Error('event log unavailable')),
      onError: (error) => errors.push(error),
    });
    out.startWorkers();
    await out.enqueue(sampleDelivery('web', 'k-callback'));

    await waitForCounts(inspector('web'), { completed: 1, failed: 0 });
    expect(sender.calls).toHaveLength(1);
    expect(errors.map((error) => error.message)).toContain('event log unavailable');
  });
});

describe('final failures', () => {
  it('records a permanent failure once, with its reason and provider code', async () => {
    const recorder = attemptRecorder();
    const redis = resources.redis('worker');
    const sender = scriptedSender(() =>
      Promise.reject(new DeliveryError('Attempt to send to unsubscribed recipient', { permanent: true, status: 400, providerCode: '21610' })),
    );
    const out = outbound(redis, { senders: { sms: sender }, onAttempt: recorder.onAttempt });
    out.startWorkers();
    const { jobId } = await out.enqueue(traced('sms', 'k-opted-out'));

    const queue = inspector('sms');
    await waitForCounts(queue, { failed: 1 });
    expect((await queue.getJob(jobId))?.failedReason).toBe('delivery.permanent: Attempt to send to unsubscribed recipient');
    const [record, ...others] = await createDeliveryFailures({ redis, prefix: prefix() }).list();
    expect(others).toEqual([]);
    expect(Date.parse(record?.failedAt ?? '')).not.toBeNaN();
    expect({ ...record, failedAt: undefined }).toEqual(
      {
        failedAt: undefined,
        channel: 'sms',
        destination: { channel: 'sms', address: 'conversation-1' },
        idempotencyKey: 'k-opted-out',
        trace,
        attempts: 1,
        reason: 'permanent',
        code: 'delivery.permanent',
        message: 'Attempt to send to unsubscribed recipient',
        providerCode: '21610',
        status: 400,
      },
    );
    expect(recorder.events).toMatchObject([{ outcome: 'failed', attempt: 1, error: { code: 'delivery.permanent', providerCode: '21610' } }]);
  });

  it('records a delivery that used up its attempts', async () => {
    const recorder = attemptRecorder();
    const redis = resources.redis('worker');
    const sender = scriptedSender(() => Promise.reject(new DeliveryError('Bad Gateway', { status: 502 })));
    const out = outbound(redis, { senders: { email: sender }, attempts: 2, backoffDelayMs: 5, onAttempt: recorder.onAttempt });
    out.startWorkers();
    await out.enqueue(sampleDelivery('email', 'k-exhausted'));

    await waitForCounts(inspector('email'), { failed: 1 });
    expect(recorder.outcomes('k-exhausted')).toEqual(['retry', 'failed']);
    const records = await createDeliveryFailures({ redis, prefix: prefix() }).list({ channel: 'email' });
    expect(records).toMatchObject([{ idempotencyKey: 'k-exhausted', reason: 'exhausted', attempts: 2, code: 'delivery.failed', status: 502 }]);
    expect(records[0]).not.toHaveProperty('trace');
  });

  it('records a delivery not sent again because an earlier outcome is unknown', async () => {
    const redis = resources.redis('worker');
    await createDeliveryLedger({ redis, prefix: prefix() }).begin('k-unknown', 'earlier-job', false);
    const out = outbound(redis, { senders: { web: scriptedSender() } });
    out.startWorkers();
    await out.enqueue(sampleDelivery('web', 'k-unknown'));

    await waitForCounts(inspector('web'), { failed: 1 });
    const records = await createDeliveryFailures({ redis, prefix: prefix() }).list();
    expect(records).toMatchObject([{ idempotencyKey: 'k-unknown', reason: 'unconfirmed', code: 'delivery.failed' }]);
    expect(records[0]?.message).toMatch(/^an earlier attempt may have sent/);
  });

  it('records a delivery whose worker stalled too often', async () => {
    const recorder = attemptRecorder();
    const redis = resources.redis('worker');
    // Each send loses the job lock and fails, so the job can be neither retried nor failed by the
    // worker: the stalled-job check takes it back, and fails it the second time.
    const sender = scriptedSender(async (delivery) => {
      await redis.del(`${prefix()}:${outboundQueueName('web')}:${outboundJobId(delivery.idempotencyKey)}:lock`);
      throw new DeliveryError('Connection reset');
    });
    const out = outbound(redis, {
      senders: { web: sender },
      jobLockDurationMs: 1000,
      stalledIntervalMs: 200,
      onAttempt: recorder.onAttempt,
      onError: () => undefined,
    });
    out.startWorkers();
    await out.enqueue(sampleDelivery('web', 'k-stalled'));

    await waitForCounts(inspector('web'), { failed: 1 });
    expect(await createDeliveryFailures({ redis, prefix: prefix() }).list()).toMatchObject([
      { idempotencyKey: 'k-stalled', reason: 'stalled', message: 'job stalled more than allowable limit' },
    ]);
    expect(recorder.outcomes('k-stalled').at(-1)).toBe('failed');
  });

  it('forgets a recorded failure when a retry of the job succeeds', async () => {
    const redis = resources.redis('worker');
    const sender = scriptedSender((_delivery, call) =>
      call === 1 ? Promise.reject(new DeliveryError('Unknown recipient', { permanent: true, status: 404 })) : Promise.resolve({}),
    );
    const out = outbound(redis, { senders: { sms: sender } });
    out.startWorkers();
    const { jobId } = await out.enqueue(sampleDelivery('sms', 'k-operator-retry'));
    const queue = inspector('sms');
    await waitForCounts(queue, { failed: 1 });
    const failures = createDeliveryFailures({ redis, prefix: prefix() });
    expect(await failures.list()).toHaveLength(1);

    await (await queue.getJob(jobId))?.retry('failed');
    await waitForCounts(queue, { completed: 1, failed: 0 });
    expect(await failures.list()).toEqual([]);
  });
});
