/**
 * Test helpers shared by the `queues/` tests: Redis clients and queue objects closed after each
 * test, and sample injections and deliveries. Not used by production code.
 */
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import type { Injection } from '../src/runtime/injection.ts';
import type { Closable } from './close-on-signal.ts';
import type { OutboundDelivery } from './outbound-types.ts';
import { producerRedisOptions, workerRedisOptions, type RedisRole } from './redis-connections.ts';

/** Per-test resources, closed (last opened first) after each test. */
export interface TestResources {
  /** Registers `closable` for closing after the test; returns it. */
  track<T extends Closable>(closable: T): T;
  /**
   * A new ioredis client with the options of `role`, closed after the test: to the test server,
   * or to `url` (e.g. a proxy in front of it).
   */
  redis(role: RedisRole, url?: string): Redis;
}

/**
 * Gives each test a {@link TestResources}. Call it after `useKeyPrefix` so that, with vitest's
 * stacked after-hooks, everything is closed before the prefix's keys are deleted.
 */
export function useTestResources(redisUrl: () => string): TestResources {
  let open: Closable[] = [];

  afterEach(async () => {
    const closing = open.reverse();
    open = [];
    for (const closable of closing) await closable.close();
  });

  const track = <T extends Closable>(closable: T): T => {
    open.push(closable);
    return closable;
  };

  return {
    track,
    redis(role, url = redisUrl()) {
      const base = redisOptionsOf(url);
      const client = new Redis(role === 'producer' ? producerRedisOptions(base) : workerRedisOptions(base));
      track({
        async close() {
          if (client.status === 'ready') await client.quit().catch(() => undefined);
          client.disconnect();
        },
      });
      return client;
    },
  };
}

/** ioredis options for the test server at `redisUrl` (host and port only). */
export function redisOptionsOf(redisUrl: string): { host: string; port: number } {
  const { hostname, port } = new URL(redisUrl);
  return { host: hostname, port: Number(port) };
}

/** A web injection with the given id. */
export function sampleInjection(id: string, overrides: Partial<Injection> = {}): Injection {
  return {
    id,
    kind: 'message',
    channel: 'web',
    tenantId: 'tenant-1',
    conversationKey: 'conversation-1',
    sender: { id: 'browser-1', verified: false },
    text: `hello from ${id}`,
    replyTo: { channel: 'web', address: 'conversation-1' },
    receivedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A delivery on `channel` with the given idempotency key. */
export function sampleDelivery(channel: string, idempotencyKey: string): OutboundDelivery {
  return {
    channel,
    destination: { channel, address: 'conversation-1' },
    idempotencyKey,
    payload: { text: `part ${idempotencyKey}` },
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
