/**
 * Helpers shared by the outbound queue tests: a scripted sender that records its calls, a sender
 * that records its prefetches, a recorder of attempt events, and a poll for job counts. Not used
 * by production code.
 */
import { Queue, type JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { expect, vi } from 'vitest';
import { createDeliveryLedger } from './delivery-ledger.ts';
import { createOutbound, outboundQueueName, type Outbound, type OutboundOptions } from './outbound-queue.ts';
import type { ChannelSender, DeliveryAttemptEvent, OutboundDelivery, SendReceipt } from './outbound-types.ts';
import type { TestResources } from './queue-test-kit.ts';

/** Outbound queues and inspecting queues for the current test, closed after it. */
export interface OutboundHarness {
  /** Outbound queues on `redis` under the test's prefix, with a 20 ms backoff unless `options` say otherwise. */
  readonly outbound: (redis: Redis, options: Omit<OutboundOptions, 'connection' | 'prefix'>) => Outbound;
  /** A plain BullMQ queue on `channel`'s outbound queue, to read job counts and jobs. */
  readonly inspector: (channel: string) => Queue;
}

/** Gives tests an {@link OutboundHarness} over `resources` and the per-test `prefix`. */
export function outboundHarness(resources: TestResources, prefix: () => string): OutboundHarness {
  return {
    outbound: (redis, options) =>
      resources.track(createOutbound({ connection: redis, prefix: prefix(), backoffDelayMs: 20, ...options })),
    inspector: (channel) =>
      resources.track(new Queue(outboundQueueName(channel), { connection: resources.redis('producer'), prefix: prefix() })),
  };
}

/** One call of a {@link scriptedSender}: the idempotency key and `performance.now()` at the call. */
export interface SenderCall {
  readonly key: string;
  readonly at: number;
}

/** A sender that records every call and answers from `script` (by call number per key, from 1). */
export function scriptedSender(
  script: (delivery: OutboundDelivery, call: number) => Promise<SendReceipt> = () => Promise.resolve({}),
  settings: Omit<ChannelSender, 'send'> = {},
): ChannelSender & { readonly calls: SenderCall[] } {
  const calls: SenderCall[] = [];
  return {
    ...settings,
    calls,
    send(delivery) {
      calls.push({ key: delivery.idempotencyKey, at: performance.now() });
      const call = calls.filter((c) => c.key === delivery.idempotencyKey).length;
      return script(delivery, call);
    },
  };
}

/** Records attempt events, each with `performance.now()` at the report. */
export function attemptRecorder(): {
  readonly events: (DeliveryAttemptEvent & { readonly seenAt: number })[];
  readonly onAttempt: (event: DeliveryAttemptEvent) => Promise<void>;
  /** The outcomes reported for `key`, in order. */
  outcomes(key: string): string[];
} {
  const events: (DeliveryAttemptEvent & { seenAt: number })[] = [];
  return {
    events,
    onAttempt(event) {
      events.push({ ...event, seenAt: performance.now() });
      return Promise.resolve();
    },
    outcomes(key) {
      return events.filter((event) => event.delivery.idempotencyKey === key).map((event) => event.outcome);
    },
  };
}

/** Polls until `queue` has exactly `counts` (for the job types named), or fails after `timeout` ms. */
export async function waitForCounts(queue: Queue, counts: Partial<Record<JobType, number>>, timeout = 10_000): Promise<void> {
  const types = Object.keys(counts) as JobType[];
  await vi.waitFor(
    async () => {
      expect(await queue.getJobCounts(...types)).toEqual(counts);
    },
    { timeout, interval: 25 },
  );
}

/** A {@link prefetchingSender}'s record: each prefetch with the ledger entry its read saw, and each delivery sent. */
export interface PrefetchRecord {
  readonly prefetched: { readonly delivery: OutboundDelivery; readonly entry: Promise<unknown> }[];
  readonly sent: OutboundDelivery[];
}

/**
 * A sender whose `prefetch` reads the delivery's ledger entry on `redis` (Redis runs one client's
 * commands in order, so the entry says whether the read ran before the claim) and whose `send`
 * answers at once; both record the delivery object they were given.
 */
export function prefetchingSender(redis: Redis, prefix: string): ChannelSender & PrefetchRecord {
  const ledger = createDeliveryLedger({ redis, prefix });
  const prefetched: PrefetchRecord['prefetched'] = [];
  const sent: OutboundDelivery[] = [];
  return {
    prefetched,
    sent,
    prefetch(delivery) {
      prefetched.push({ delivery, entry: ledger.read(delivery.idempotencyKey) });
    },
    send(delivery) {
      sent.push(delivery);
      return Promise.resolve({ providerMessageId: `P${String(sent.length)}` });
    },
  };
}
