import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { createServiceWindows, type ServiceWindows } from './service-window.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;
let windows: ServiceWindows;
const GRACE = '+447700900123';
const hoursAgo = (hours: number): Date => new Date(Date.now() - hours * 3_600_000);

beforeEach(() => {
  redis = new Redis(redisUrl());
  windows = createServiceWindows({ redis, prefix: `${prefix()}:whatsapp` });
});
afterEach(async () => { await redis.quit(); });

describe('the 24-hour customer-service window', () => {
  it('is closed for a contact who never wrote, open after they write, closed near 24 hours later', async () => {
    expect(await windows.isOpen(GRACE, new Date())).toBe(false);
    await windows.noteInbound(GRACE, hoursAgo(2));
    expect(await windows.isOpen(GRACE, new Date())).toBe(true);
    expect(await windows.isOpen(GRACE, new Date(Date.now() + 21.9 * 3_600_000))).toBe(true);
    expect(await windows.isOpen(GRACE, new Date(Date.now() + 22 * 3_600_000 - 60_000))).toBe(false);
  });

  it('keeps the latest message when an older one is redelivered, and expires with the window', async () => {
    await windows.noteInbound(GRACE, hoursAgo(1));
    await windows.noteInbound(GRACE, hoursAgo(20));
    expect(await windows.isOpen(GRACE, new Date(Date.now() + 10 * 3_600_000))).toBe(true);
    const ttl = await redis.pttl(`${prefix()}:whatsapp:window:${GRACE}`);
    expect(ttl).toBeGreaterThan(22 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(23 * 3_600_000);
    await windows.noteInbound('+15550100999', hoursAgo(30));
    expect(await redis.exists(`${prefix()}:whatsapp:window:+15550100999`)).toBe(0);
  });

  it('moves the window on with a later message, and keeps the latest of messages noted at once', async () => {
    const key = `${prefix()}:whatsapp:window:${GRACE}`;
    const early = hoursAgo(20);
    const late = hoursAgo(1);
    await windows.noteInbound(GRACE, early);
    expect(await windows.isOpen(GRACE, new Date(Date.now() + 10 * 3_600_000))).toBe(false);
    await windows.noteInbound(GRACE, late);
    expect(await redis.get(key)).toBe(String(late.getTime()));
    expect(await windows.isOpen(GRACE, new Date(Date.now() + 10 * 3_600_000))).toBe(true);

    await redis.del(key);
    await Promise.all([windows.noteInbound(GRACE, late), windows.noteInbound(GRACE, early), windows.noteInbound(GRACE, hoursAgo(5))]);
    expect(await redis.get(key)).toBe(String(late.getTime()));
  });
});
