/**
 * Schedules across processes: three processes sync the same every-second schedule on one Redis and
 * each runs a worker; every tick must run in exactly one of them.
 */
import { Redis } from 'ioredis';
import { afterEach, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { startScheduleProcess, type ScheduleProcess } from '../support/schedule-process.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);

let running: ScheduleProcess[] = [];
afterEach(async () => {
  const stopping = running;
  running = [];
  await Promise.allSettled(stopping.map((child) => child.stop()));
});

it('runs each tick of a schedule once across three processes', async () => {
  const listKey = `${prefix()}:ticks`;
  const base = { redisUrl: redisUrl(), prefix: prefix(), listKey, scheduleId: 'every-second', cron: '*/1 * * * * *' };
  running = await Promise.all(['p1', 'p2', 'p3'].map((name) => startScheduleProcess({ ...base, name })));

  const redis = new Redis(redisUrl());
  try {
    await vi.waitFor(
      async () => {
        expect(await redis.llen(listKey)).toBeGreaterThanOrEqual(4);
      },
      { timeout: 10_000, interval: 100 },
    );
    const stopping = running;
    running = [];
    await Promise.all(stopping.map((child) => child.stop()));
    const records = await redis.lrange(listKey, 0, -1);

    const byTick = new Map<number, string[]>();
    for (const record of records) {
      const [name = '', at = ''] = record.split(':');
      byTick.set(Number(at), [...(byTick.get(Number(at)) ?? []), name]);
    }
    const duplicates = [...byTick].filter(([, names]) => names.length > 1);
    expect(duplicates).toEqual([]);
    const ticks = [...byTick.keys()].sort((a, b) => a - b);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.every((at) => at % 1000 === 0)).toBe(true);
    // No tick was lost between the first and the last one recorded.
    expect((ticks.at(-1) ?? 0) - (ticks[0] ?? 0)).toBe((ticks.length - 1) * 1000);
  } finally {
    redis.disconnect();
  }
}, 20_000);
