import { Queue } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../test/support/redis.ts';
import { redisOptionsOf, useTestResources } from './queue-test-kit.ts';
import { createScheduler, SCHEDULE_QUEUE_NAME, type CronSchedule, type SchedulerOptions } from './schedule-queue.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);

const EVERY_SECOND = '*/1 * * * * *';

function scheduler(options: Partial<SchedulerOptions<CronSchedule>> & Pick<SchedulerOptions<CronSchedule>, 'schedules'>): ReturnType<typeof createScheduler> {
  return resources.track(
    createScheduler({ connection: redisOptionsOf(redisUrl()), prefix: prefix(), onTick: () => Promise.resolve(), ...options }),
  );
}

function inspector(): Queue {
  return resources.track(new Queue(SCHEDULE_QUEUE_NAME, { connection: resources.redis('producer'), prefix: prefix() }));
}

const waitLong = { timeout: 8000, interval: 25 };

describe('schedule queue', () => {
  it('keeps one job scheduler per enabled schedule and removes the others', async () => {
    const queue = inspector();
    await scheduler({
      schedules: [
        { id: 'morning', cron: '0 9 * * 1-5', timezone: 'Europe/London' },
        { id: 'off', cron: '0 9 * * *', enabled: false },
        { id: 'gone', cron: '0 10 * * *' },
      ],
    }).sync();
    expect((await queue.getJobSchedulers(0, -1)).map((found) => found.key).sort()).toEqual(['gone', 'morning']);
    const before = await queue.getJobScheduler('morning');
    expect(before).toMatchObject({ pattern: '0 9 * * 1-5', tz: 'Europe/London' });

    const again = scheduler({ schedules: [{ id: 'morning', cron: '0 9 * * 1-5', timezone: 'Europe/London' }, { id: 'noon', cron: '0 12 * * *' }] });
    await again.sync();
    await again.sync();
    expect((await queue.getJobSchedulers(0, -1)).map((found) => found.key).sort()).toEqual(['morning', 'noon']);
    expect(await queue.getJobScheduler('morning')).toEqual(before);
    expect(await queue.getJobScheduler('noon')).toMatchObject({ pattern: '0 12 * * *', tz: 'UTC' });

    await scheduler({ schedules: [{ id: 'morning', cron: '30 8 * * *', timezone: 'Europe/London' }] }).sync();
    expect(await queue.getJobScheduler('morning')).toMatchObject({ pattern: '30 8 * * *' });
    expect(await queue.getJobSchedulersCount()).toBe(1);
  });

  it('calls onTick once per tick with the tick time', async () => {
    const fired: Date[] = [];
    const ticking = scheduler({
      schedules: [{ id: 'fast', cron: EVERY_SECOND }],
      onTick: (schedule, firedAt) => {
        expect(schedule.id).toBe('fast');
        fired.push(firedAt);
        return Promise.resolve();
      },
    });
    await ticking.sync();
    ticking.startWorker();
    await vi.waitFor(() => {
      expect(fired.length).toBeGreaterThanOrEqual(2);
    }, waitLong);
    const times = fired.map((at) => at.getTime());
    expect(times.every((ms) => ms % 1000 === 0)).toBe(true);
    expect(new Set(times).size).toBe(times.length);
    expect(times[1]).toBe((times[0] ?? 0) + 1000);
  });

  it('retries a failed tick with the same time, but not a schedule.invalid one', async () => {
    const calls: { id: string; at: number }[] = [];
    const errors: Error[] = [];
    const ticking = scheduler({
      schedules: [{ id: 'flaky', cron: EVERY_SECOND }, { id: 'broken', cron: EVERY_SECOND }],
      attempts: 3,
      backoffDelayMs: 10,
      onError: (error) => errors.push(error),
      onTick: (schedule, firedAt) => {
        calls.push({ id: schedule.id, at: firedAt.getTime() });
        const failures = calls.filter((call) => call.id === 'flaky' && call.at === firedAt.getTime()).length;
        if (schedule.id === 'broken') return Promise.reject(new SwitchboardError('schedule.invalid', 'nobody to send to'));
        return failures < 3 ? Promise.reject(new Error('redis hiccup')) : Promise.resolve();
      },
    });
    await ticking.sync();
    ticking.startWorker();
    await vi.waitFor(() => {
      expect(calls.filter((call) => call.id === 'flaky')).toHaveLength(3);
    }, waitLong);
    await ticking.close();
    const firstFlaky = calls.find((call) => call.id === 'flaky')?.at;
    expect(calls.filter((call) => call.id === 'flaky').every((call) => call.at === firstFlaky)).toBe(true);
    const broken = calls.filter((call) => call.id === 'broken').map((call) => call.at);
    expect(new Set(broken).size).toBe(broken.length);
    expect(errors.map((error) => error.message)).toContain('nobody to send to');
  });

  it('skips a late tick, and reports ticks of schedules it does not know', async () => {
    await scheduler({ schedules: [{ id: 'known', cron: EVERY_SECOND }, { id: 'stranger', cron: EVERY_SECOND }] }).sync();
    const onTick = vi.fn(() => Promise.resolve());
    const skipped: { id: string; lateByMs: number }[] = [];
    const errors: Error[] = [];
    const late = scheduler({
      schedules: [{ id: 'known', cron: EVERY_SECOND }],
      now: () => Date.now() + 2 * 60 * 60 * 1000,
      onTick,
      onSkip: (schedule, _firedAt, lateByMs) => skipped.push({ id: schedule.id, lateByMs }),
      onError: (error) => errors.push(error),
    });
    late.startWorker();
    await vi.waitFor(() => {
      expect(skipped.length).toBeGreaterThanOrEqual(1);
      expect(errors.length).toBeGreaterThanOrEqual(1);
    }, waitLong);
    expect(onTick).not.toHaveBeenCalled();
    expect(skipped[0]?.lateByMs).toBeGreaterThan(60 * 60 * 1000);
    expect(errors[0]).toMatchObject({ code: 'schedule.invalid', details: { scheduleId: 'stranger' } });
  });

  it('refuses to sync after close', async () => {
    const closed = createScheduler({ connection: redisOptionsOf(redisUrl()), prefix: prefix(), schedules: [], onTick: () => Promise.resolve() });
    await closed.close();
    await expect(closed.sync()).rejects.toMatchObject({ code: 'queue.closed' });
    expect(() => {
      closed.startWorker();
    }).toThrow('The schedule queue is closed');
  });
});
