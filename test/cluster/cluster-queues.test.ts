/**
 * The queues on a real Redis Cluster: the inbound, turn and outbound queues, the approval expiries
 * and the app's schedules add and process jobs (BullMQ's own Lua scripts: add, dedupe, move to
 * active, retry with backoff, delay, promote, job schedulers, counts), each factory opening its own
 * `Cluster` clients from the connection options `REDIS_URL` gives. Every key lands in the hash
 * slot of the `{…}` prefix.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createApprovalExpiry } from '../../queues/approval-expiry-queue.ts';
import { DeliveryError } from '../../queues/delivery-error.ts';
import { createInboundQueue, createInboundWorker } from '../../queues/inbound-queue.ts';
import { createOutbound } from '../../queues/outbound-queue.ts';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { sampleDelivery, sampleInjection } from '../../queues/queue-test-kit.ts';
import { createQueueStats } from '../../queues/queue-stats.ts';
import { closeRedis, type RedisConnectionInput } from '../../queues/redis-connections.ts';
import { createScheduler } from '../../queues/schedule-queue.ts';
import { createTurnQueue, createTurnWorker } from '../../queues/turn-queue.ts';
import { createRedisClient } from '../../src/runtime/redis/redis-client.ts';
import { redisOptions } from '../../queues/redis-connections.ts';
import { describeOnCluster, keysWithSlots, uniqueClusterPrefix } from '../support/redis-cluster.ts';
import { waitFor } from '../support/wait-for.ts';

describeOnCluster('queues on a Redis Cluster', (cluster) => {
  let redis: Redis;
  let connection: RedisConnectionInput;
  let prefix = '';
  let open: { close(): Promise<void> }[] = [];
  const track = <T extends { close(): Promise<void> }>(closable: T): T => {
    open.push(closable);
    return closable;
  };

  beforeAll(() => {
    redis = createRedisClient(cluster().url);
    connection = redisOptions(cluster().url);
  });
  afterAll(async () => {
    await closeRedis(redis);
  });
  beforeEach(() => {
    prefix = uniqueClusterPrefix('queues');
  });
  afterEach(async () => {
    for (const closable of open.reverse()) await closable.close();
    open = [];
  });

  /** Every key under the prefix is in one slot; returns the keys. */
  async function keysInOneSlot(): Promise<string[]> {
    const keys = await keysWithSlots(redis, prefix);
    expect(new Set(keys.map((key) => key.slot)).size).toBe(1);
    return keys.map((key) => key.key);
  }

  it('opens Cluster clients from the connection options of a comma-separated REDIS_URL', () => {
    expect(connection).toMatchObject({ clusterNodes: cluster().ports.map((port) => ({ host: '127.0.0.1', port })) });
  });

  it('inbound queue: dedupe on enqueue, retry with backoff, process', async () => {
    const inbound = track(createInboundQueue({ connection, prefix, attempts: 3, backoffDelayMs: 20 }));
    const calls = new Map<string, number>();
    track(createInboundWorker({
      connection,
      prefix,
      process: (injection) => {
        const count = (calls.get(injection.id) ?? 0) + 1;
        calls.set(injection.id, count);
        return injection.id === 'web:flaky' && count < 2 ? Promise.reject(new Error('not yet')) : Promise.resolve();
      },
    }));
    expect((await inbound.enqueue(sampleInjection('web:one'))).duplicate).toBe(false);
    expect((await inbound.enqueue(sampleInjection('web:one'))).duplicate).toBe(true);
    await inbound.enqueue(sampleInjection('web:flaky'));
    await waitFor(() => calls.get('web:one') === 1 && calls.get('web:flaky') === 2, 'both injections are processed, the flaky one after a retry');
    const stats = track(createQueueStats({ connection, prefix, queues: ['inbound'] }));
    await waitFor(async () => (await stats.counts())[0]?.counts['completed'] === 2, 'both inbound jobs complete');
    expect((await keysInOneSlot()).some((key) => key.startsWith(`${prefix}:inbound:`))).toBe(true);
  });

  it('turn queue: turns of two sessions, one delayed, each under its session lock', async () => {
    const turns = track(createTurnQueue({ connection, prefix }));
    const ran: string[] = [];
    track(createTurnWorker({ connection, prefix, lockTtlMs: 2000, process: (sessionId) => { ran.push(sessionId); return Promise.resolve(); } }));
    await turns.schedule('s-1', 'm-1');
    await turns.schedule('s-2', 'm-2', { delayMs: 50 });
    await waitFor(() => ran.length === 2, 'both turns ran');
    expect([...ran].sort()).toEqual(['s-1', 's-2']);
    expect((await keysInOneSlot()).some((key) => key.startsWith(`${prefix}:turns:`))).toBe(true);
  });

  it('outbound queue: send once per idempotency key, retry a 503, per-destination limit, ledger', async () => {
    const sent: OutboundDelivery[] = [];
    let calls = 0;
    const outbound = track(createOutbound({
      connection,
      prefix,
      backoffDelayMs: 20,
      senders: {
        sms: {
          destinationRateLimit: { max: 10, durationMs: 1000 },
          send: (delivery) => {
            calls += 1;
            if (calls === 1) return Promise.reject(new DeliveryError('Service Unavailable', { status: 503 }));
            sent.push(delivery);
            return Promise.resolve({ providerMessageId: `SM${sent.length}` });
          },
        },
      },
    }));
    outbound.startWorkers();
    expect((await outbound.enqueue(sampleDelivery('sms', 'k-1'))).duplicate).toBe(false);
    expect((await outbound.enqueue(sampleDelivery('sms', 'k-1'))).duplicate).toBe(true);
    await outbound.enqueue(sampleDelivery('sms', 'k-2'));
    await waitFor(() => sent.length === 2, 'both deliveries are sent, the first after a retry');
    expect(sent.map((delivery) => delivery.idempotencyKey).sort()).toEqual(['k-1', 'k-2']);
    const keys = await keysInOneSlot();
    expect(keys.some((key) => key.startsWith(`${prefix}:outbound-sms:`))).toBe(true);
    expect(keys.some((key) => key.startsWith(`${prefix}:delivery-ledger:`))).toBe(true);
  });

  it('approval expiries (delayed jobs, removal) and the app schedules (job schedulers)', async () => {
    const expired: string[] = [];
    const expiry = track(createApprovalExpiry({ connection, prefix, onExpire: (approvalId) => { expired.push(approvalId); return Promise.resolve(); } }));
    expiry.startWorker();
    await expiry.schedule('apr-1', new Date(Date.now() + 50));
    await expiry.schedule('apr-2', new Date(Date.now() + 60_000));
    await expiry.cancel('apr-2');
    const ticks: string[] = [];
    const scheduler = track(createScheduler({
      connection,
      prefix,
      schedules: [{ id: 'every-second', cron: '*/1 * * * * *' }],
      onTick: (schedule) => { ticks.push(schedule.id); return Promise.resolve(); },
    }));
    await scheduler.sync();
    scheduler.startWorker();
    await waitFor(() => expired.length === 1 && ticks.length > 0, 'the approval expires and the schedule ticks', 5_000);
    expect(expired).toEqual(['apr-1']);
    await keysInOneSlot();
  });
});
