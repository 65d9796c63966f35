import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import type { Injection } from '../src/runtime/injection.ts';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { createInboundQueue, createInboundWorker, INBOUND_QUEUE_NAME } from './inbound-queue.ts';
import { inboundJobId } from './job-ids.ts';
import { redisOptionsOf, sampleInjection, useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

function inspector(redis: Redis): Queue {
  return resources.track(new Queue(INBOUND_QUEUE_NAME, { connection: redis, prefix: prefix() }));
}

describe('createInboundQueue', () => {
  it('enqueues an injection under in-<sha256 of its id> and reports a redelivery as a duplicate', async () => {
    const inbound = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const injection = sampleInjection('web:msg-1');

    const first = await inbound.enqueue(injection);
    const again = await inbound.enqueue({ ...injection, text: 'redelivered' });

    expect(first).toEqual({ jobId: inboundJobId('web:msg-1'), duplicate: false });
    expect(first.jobId).toMatch(/^in-[0-9a-f]{64}$/);
    expect(again).toEqual({ jobId: first.jobId, duplicate: true });
    const queue = inspector(resources.redis('producer'));
    expect(await queue.getJobCounts('wait')).toEqual({ wait: 1 });
    const job = await queue.getJob(first.jobId);
    expect((job?.data as { item: Injection }).item).toEqual(injection);
  });

  it('reports exactly one of many concurrent enqueues of one id as new', async () => {
    const inbound = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const rival = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const injection = sampleInjection('sms:SM123');

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? inbound : rival).enqueue(injection)),
    );

    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    expect(new Set(results.map((result) => result.jobId)).size).toBe(1);
  });

  it('still drops a redelivery after the first injection was processed', async () => {
    const seen: string[] = [];
    const inbound = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    resources.track(
      createInboundWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        process: (injection) => {
          seen.push(injection.id);
          return Promise.resolve();
        },
      }),
    );
    const queue = inspector(resources.redis('producer'));

    expect((await inbound.enqueue(sampleInjection('email:7-42'))).duplicate).toBe(false);
    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    });
    expect((await inbound.enqueue(sampleInjection('email:7-42'))).duplicate).toBe(true);
    expect((await inbound.enqueue(sampleInjection('email:7-43'))).duplicate).toBe(false);

    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 2 });
    });
    expect(seen).toEqual(['email:7-42', 'email:7-43']);
  });

  it('keeps completed jobs for the dedupe window and caps their number', async () => {
    const inbound = resources.track(
      createInboundQueue({ connection: resources.redis('producer'), prefix: prefix(), dedupeWindowMs: 3_600_000, dedupeMaxJobs: 500 }),
    );
    const { jobId } = await inbound.enqueue(sampleInjection('web:kept'));
    const job = await inspector(resources.redis('producer')).getJob(jobId);
    expect(job?.opts.removeOnComplete).toEqual({ age: 3600, count: 500 });
    expect(job?.opts.removeOnFail).toBe(false);
    expect(job?.opts.attempts).toBe(5);
    expect(job?.opts.backoff).toEqual({ type: 'exponential', delay: 1000 });
  });

  it('defaults to a 7-day dedupe window', async () => {
    const inbound = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const { jobId } = await inbound.enqueue(sampleInjection('web:default-window'));
    const job = await inspector(resources.redis('producer')).getJob(jobId);
    expect(job?.opts.removeOnComplete).toEqual({ age: 7 * 24 * 3600, count: 100_000 });
  });

  it('rejects enqueue after close, and leaves a client passed in open', async () => {
    const redis = resources.redis('producer');
    const inbound = createInboundQueue({ connection: redis, prefix: prefix() });
    await inbound.enqueue(sampleInjection('web:before-close'));
    await inbound.close();
    await inbound.close();

    await expect(inbound.enqueue(sampleInjection('web:after-close'))).rejects.toMatchObject({ code: 'queue.closed' });
    await expect(inbound.enqueue(sampleInjection('web:after-close'))).rejects.toBeInstanceOf(SwitchboardError);
    expect(await redis.ping()).toBe('PONG');
  });

  it('opens and closes its own client when given connection options', async () => {
    const inbound = createInboundQueue({ connection: redisOptionsOf(redisUrl()), prefix: prefix() });
    expect((await inbound.enqueue(sampleInjection('web:own-client'))).duplicate).toBe(false);
    await inbound.close();
  });
});

describe('createInboundWorker', () => {
  it('retries a failing injection with backoff, then keeps it in failed once attempts run out', async () => {
    const calls = new Map<string, number>();
    const inbound = resources.track(
      createInboundQueue({ connection: resources.redis('producer'), prefix: prefix(), attempts: 3, backoffDelayMs: 20 }),
    );
    resources.track(
      createInboundWorker({
        connection: resources.redis('worker'),
        prefix: prefix(),
        process: (injection) => {
          const count = (calls.get(injection.id) ?? 0) + 1;
          calls.set(injection.id, count);
          if (injection.id === 'web:flaky' && count < 3) return Promise.reject(new Error('mailbox unavailable'));
          if (injection.id === 'web:broken') return Promise.reject(new Error('always broken'));
          return Promise.resolve();
        },
      }),
    );
    const queue = inspector(resources.redis('producer'));

    await inbound.enqueue(sampleInjection('web:flaky'));
    const { jobId } = await inbound.enqueue(sampleInjection('web:broken'));

    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed', 'failed')).toEqual({ completed: 1, failed: 1 });
    });
    expect(calls.get('web:flaky')).toBe(3);
    expect(calls.get('web:broken')).toBe(3);
    const failed = await queue.getJob(jobId);
    expect(failed?.failedReason).toBe('always broken');
    expect(failed?.attemptsMade).toBe(3);
  });

  it('processes injections in parallel across workers: no queue-wide lane, even one left by an earlier version', async () => {
    let running = 0;
    let peak = 0;
    const seen: string[] = [];
    // What earlier versions stored: one job at a time across the cluster.
    const legacy = new Queue('inbound', { connection: resources.redis('producer'), prefix: prefix() });
    await legacy.setGlobalConcurrency(1);
    await legacy.close();
    const inbound = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    for (let worker = 0; worker < 2; worker += 1) {
      resources.track(
        createInboundWorker({
          connection: resources.redis('worker'),
          prefix: prefix(),
          concurrency: 4,
          process: async (injection) => {
            running += 1;
            peak = Math.max(peak, running);
            await new Promise((resolve) => setTimeout(resolve, 10));
            seen.push(injection.id);
            running -= 1;
          },
        }),
      );
    }
    const queue = inspector(resources.redis('producer'));
    const ids = Array.from({ length: 12 }, (_, i) => `web:c-${i}`);
    for (const id of ids) await inbound.enqueue(sampleInjection(id));

    await vi.waitFor(async () => {
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 12 });
    });
    expect(peak).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  it('lets running injections finish on close', async () => {
    let finished = false;
    let started = false;
    const inbound = resources.track(createInboundQueue({ connection: resources.redis('producer'), prefix: prefix() }));
    const worker = createInboundWorker({
      connection: redisOptionsOf(redisUrl()),
      prefix: prefix(),
      process: async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 300));
        finished = true;
      },
    });
    await inbound.enqueue(sampleInjection('web:slow'));
    await vi.waitFor(() => {
      expect(started).toBe(true);
    });
    await worker.close();
    expect(finished).toBe(true);
    const queue = inspector(resources.redis('producer'));
    expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
  });
});
