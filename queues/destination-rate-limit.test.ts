import { describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { createDestinationRateLimit, destinationRateKey } from './destination-rate-limit.ts';
import { useTestResources } from './queue-test-kit.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

/** A window long enough that no test sees it pass. */
const LONG = { max: 1, durationMs: 60_000 };

function limiter(waiterGraceMs?: number) {
  const redis = resources.redis('worker');
  return { redis, limit: createDestinationRateLimit({ redis, prefix: prefix(), ...(waiterGraceMs === undefined ? {} : { waiterGraceMs }) }) };
}

/** Waits until every grant of (`channel`, `address`) has left a window of `durationMs` on the server's clock. */
async function waitForWindowToPass(redis: ReturnType<typeof limiter>['redis'], address: string, durationMs: number): Promise<void> {
  const key = destinationRateKey(prefix(), 'sms', address, 'sent');
  await vi.waitFor(
    async () => {
      const [seconds, micros] = await redis.time();
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const newest = await redis.zrevrange(key, 0, 0, 'WITHSCORES');
      expect(Number(newest[1] ?? 0)).toBeLessThanOrEqual(now - durationMs);
    },
    { timeout: 5000, interval: 20 },
  );
}

describe('createDestinationRateLimit', () => {
  it('grants max sends per window, then lines the others up one window apart', async () => {
    const { limit } = limiter();
    expect(await limit.acquire('sms', '+15550100', 'j1', LONG)).toBe(0);
    const second = await limit.acquire('sms', '+15550100', 'j2', LONG);
    const third = await limit.acquire('sms', '+15550100', 'j3', LONG);
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThanOrEqual(60_000);
    expect(third).toBeGreaterThan(60_000);
    expect(third).toBeLessThanOrEqual(120_000);
    // Asking again keeps the place in line; a newcomer goes to the end.
    expect(await limit.acquire('sms', '+15550100', 'j2', LONG)).toBeLessThanOrEqual(60_000);
    expect(await limit.acquire('sms', '+15550100', 'j4', LONG)).toBeGreaterThan(120_000);
  });

  it('keeps destinations and channels apart', async () => {
    const { limit } = limiter();
    expect(await limit.acquire('sms', '+15550100', 'j1', LONG)).toBe(0);
    expect(await limit.acquire('sms', '+15550101', 'j2', LONG)).toBe(0);
    expect(await limit.acquire('whatsapp', '+15550100', 'j3', LONG)).toBe(0);
    expect(await limit.acquire('sms', '+15550100', 'j4', LONG)).toBeGreaterThan(0);
  });

  it('grants exactly max slots to many workers asking at once', async () => {
    const [one, other] = [limiter().limit, limiter().limit];
    const limit = { max: 3, durationMs: 60_000 };
    const waits = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : other).acquire('sms', '+15550100', `j${String(i)}`, limit)),
    );
    expect(waits.filter((wait) => wait === 0)).toHaveLength(3);
  });

  it('does not let a newcomer pass a delivery that was held back first', async () => {
    const { redis, limit } = limiter();
    const window = { max: 1, durationMs: 150 };
    expect(await limit.acquire('sms', '+15550100', 'first', window)).toBe(0);
    expect(await limit.acquire('sms', '+15550100', 'held', window)).toBeGreaterThan(0);
    await waitForWindowToPass(redis, '+15550100', window.durationMs);
    expect(await limit.acquire('sms', '+15550100', 'newcomer', window)).toBeGreaterThan(0);
    expect(await limit.acquire('sms', '+15550100', 'held', window)).toBe(0);
    expect(await limit.acquire('sms', '+15550100', 'newcomer', window)).toBeGreaterThan(0);
  });

  it('gives up the place of a held-back delivery that never comes back', async () => {
    const { limit } = limiter(50);
    const window = { max: 1, durationMs: 100 };
    expect(await limit.acquire('sms', '+15550100', 'first', window)).toBe(0);
    expect(await limit.acquire('sms', '+15550100', 'vanished', window)).toBeGreaterThan(0);
    await vi.waitFor(
      async () => {
        expect(await limit.acquire('sms', '+15550100', 'next', window)).toBe(0);
      },
      { timeout: 5000, interval: 20 },
    );
    expect(await limit.acquire('sms', '+15550100', 'vanished', window)).toBeGreaterThan(0);
  });

  it('lets its keys expire once idle', async () => {
    const { redis, limit } = limiter();
    await limit.acquire('sms', '+15550100', 'j1', { max: 1, durationMs: 1000 });
    await limit.acquire('sms', '+15550100', 'j2', { max: 1, durationMs: 1000 });
    for (const part of ['sent', 'line', 'leases', 'seq']) {
      const ttl = await redis.pttl(destinationRateKey(prefix(), 'sms', '+15550100', part));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1000 + 15_000 + 1000);
    }
  });

  it('counts a method window across destinations and grants nothing over it', async () => {
    const { limit } = limiter();
    const update = { method: { name: 'chat.update', limit: { max: 2, durationMs: 60_000 } } };
    expect(await limit.acquire('slack', 'C1', 'u1', undefined, update)).toBe(0);
    expect(await limit.acquire('slack', 'C2', 'u2', undefined, update)).toBe(0);
    const held = await limit.acquire('slack', 'C3', 'u3', undefined, update);
    expect(held).toBeGreaterThan(59_000);
    expect(held).toBeLessThanOrEqual(60_000);
    // Another method, and another channel, have windows of their own.
    expect(await limit.acquire('slack', 'C4', 'p1', undefined, { method: { name: 'chat.postMessage', limit: { max: 2, durationMs: 60_000 } } })).toBe(0);
    expect(await limit.acquire('whatsapp', 'C1', 'w1', undefined, update)).toBe(0);
  });

  it('keeps a destination in order behind a delivery a shared limit holds back', async () => {
    const { redis, limit } = limiter();
    const channel = { channel: { max: 1, durationMs: 300 } };
    expect(await limit.acquire('sms', '+15550100', 'first', undefined, channel)).toBe(0);
    expect(await limit.acquire('sms', '+15550101', 'held', undefined, channel)).toBeGreaterThan(0);
    // Without a destination limit of its own, a later one to that destination waits for the held one.
    expect(await limit.acquire('sms', '+15550101', 'later', undefined, {})).toBeGreaterThan(0);
    await vi.waitFor(async () => {
      expect(await redis.exists(`${prefix()}:outbound-window:sms`)).toBe(0);
    }, { timeout: 5000, interval: 20 });
    expect(await limit.acquire('sms', '+15550101', 'later', undefined, {})).toBeGreaterThan(0);
    expect(await limit.acquire('sms', '+15550101', 'held', undefined, channel)).toBe(0);
    expect(await limit.acquire('sms', '+15550101', 'later', undefined, {})).toBe(0);
  });

  it('holds every send of the channel while it is paused after a 429', async () => {
    const { redis, limit } = limiter();
    await redis.set(`${prefix()}:outbound-pause:sms`, '1', 'PX', 5000);
    const wait = await limit.acquire('sms', '+15550100', 'j1', { max: 5, durationMs: 1000 });
    expect(wait).toBeGreaterThan(4000);
    expect(wait).toBeLessThanOrEqual(5000);
    await redis.del(`${prefix()}:outbound-pause:sms`);
    expect(await limit.acquire('sms', '+15550100', 'j1', { max: 5, durationMs: 1000 })).toBe(0);
  });
});
