import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { createBudgetStore, type BudgetStore, type ScopeLimits } from './budget-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;
let store: BudgetStore;

beforeEach(() => {
  redis = new Redis(redisUrl());
  store = createBudgetStore({ redis, prefix: prefix() });
});
afterEach(async () => {
  await redis.quit();
});

const AT = Date.parse('2031-05-20T20:48:00.000Z');

function scopes(sender: ScopeLimits['limits'] = {}, conversation: ScopeLimits['limits'] = {}, deployment: ScopeLimits['limits'] = {}): ScopeLimits[] {
  return [
    { scope: 'sender', id: 'web:b_1', limits: sender },
    { scope: 'conversation', id: 'default:web:c-1', limits: conversation },
    { scope: 'deployment', id: 'all', limits: deployment },
  ];
}

describe('budget store', () => {
  it('adds each call to the day and the month of every scope, and the keys expire after their period', async () => {
    await store.record(scopes(), { tokens: 400, calls: 1 }, AT);
    await store.record(scopes(), { tokens: 250, calls: 1 }, AT);
    for (const [scope, id] of [['sender', 'web:b_1'], ['conversation', 'default:web:c-1'], ['deployment', 'all']] as const) {
      expect(await store.usage(scope, id, AT)).toEqual({ day: { tokens: 650, calls: 2 }, month: { tokens: 650, calls: 2 } });
    }
    const dayExpiry = await redis.expiretime(`${prefix()}:budget:conversation:default:web:c-1:d:2031-05-20`);
    const monthExpiry = await redis.expiretime(`${prefix()}:budget:deployment:all:m:2031-05`);
    expect(dayExpiry).toBe(Date.parse('2031-05-21T01:00:00.000Z') / 1000);
    expect(monthExpiry).toBe(Date.parse('2031-06-01T01:00:00.000Z') / 1000);
    // The next day starts from nothing; the month goes on.
    const tomorrow = AT + 86_400_000;
    expect(await store.usage('sender', 'web:b_1', tomorrow)).toEqual({ day: { tokens: 0, calls: 0 }, month: { tokens: 650, calls: 2 } });
  });

  it('refuses once a counter has reached its limit, naming the scope, period and measure', async () => {
    const limited = scopes({}, { tokensPerDay: 1000 }, { callsPerMonth: 5 });
    expect(await store.admit(limited, undefined, AT)).toEqual({ ok: true });
    await store.record(limited, { tokens: 999, calls: 1 }, AT);
    expect(await store.admit(limited, undefined, AT)).toEqual({ ok: true });
    await store.record(limited, { tokens: 1, calls: 1 }, AT);
    expect(await store.admit(limited, undefined, AT)).toEqual({
      ok: false, scope: 'conversation', period: 'day', measure: 'tokens', used: 1000, limit: 1000, resetsAt: Date.parse('2031-05-21T00:00:00.000Z'),
    });
    // A month limit that is also reached is the one told: it lasts longer.
    await store.record(limited, { tokens: 0, calls: 3 }, AT);
    expect(await store.admit(limited, undefined, AT)).toMatchObject({ ok: false, scope: 'deployment', period: 'month', measure: 'calls', used: 5, limit: 5 });
    // A limit of 0 refuses from the first turn.
    expect(await store.admit(scopes({ callsPerDay: 0 }), undefined, AT + 40 * 86_400_000)).toMatchObject({ ok: false, scope: 'sender', limit: 0, used: 0 });
  });

  it('lets a sender start at most N turns a minute, a resumed turn again, and frees places as they age', async () => {
    const rate = (turnId: string): { senderId: string; turnId: string; maxTurns: number; windowMs: number } => ({ senderId: 'web:b_1', turnId, maxTurns: 2, windowMs: 60_000 });
    expect(await store.admit(scopes(), rate('t-1'), AT)).toEqual({ ok: true });
    expect(await store.admit(scopes(), rate('t-2'), AT + 10_000)).toEqual({ ok: true });
    expect(await store.admit(scopes(), rate('t-1'), AT + 20_000)).toEqual({ ok: true });
    expect(await store.admit(scopes(), rate('t-3'), AT + 20_000)).toEqual({ ok: false, scope: 'rate', retryAfterMs: 40_000 });
    expect(await store.admit(scopes(), rate('t-3'), AT + 60_001)).toEqual({ ok: true });
    // Another sender has its own window.
    expect(await store.admit(scopes(), { ...rate('t-4'), senderId: 'sms:+15550100' }, AT + 20_000)).toEqual({ ok: true });
    // A turn over a budget takes no place in the window.
    const over = scopes({ callsPerDay: 0 });
    expect(await store.admit(over, rate('t-5'), AT + 61_000)).toMatchObject({ ok: false, scope: 'sender' });
    expect(await redis.zscore(`${prefix()}:budget:rate:web:b_1`, 't-5')).toBeNull();
  });

  it('counts exactly under concurrent writers on separate connections', async () => {
    const other = new Redis(redisUrl());
    try {
      const second = createBudgetStore({ redis: other, prefix: prefix() });
      await Promise.all(Array.from({ length: 200 }, (_, index) => (index % 2 === 0 ? store : second).record(scopes(), { tokens: 7, calls: 1 }, AT)));
      expect(await store.usage('deployment', 'all', AT)).toEqual({ day: { tokens: 1400, calls: 200 }, month: { tokens: 1400, calls: 200 } });
    } finally {
      await other.quit();
    }
  });

  it('sends the records of one loop turn as one script, summed per key, each counted exactly', async () => {
    const of = (sender: string, conversation: string): ScopeLimits[] => [
      { scope: 'sender', id: sender, limits: {} },
      { scope: 'conversation', id: conversation, limits: {} },
      { scope: 'deployment', id: 'all', limits: {} },
    ];
    const scripts = vi.spyOn(redis, 'evalsha');
    const tomorrow = AT + 86_400_000;
    await Promise.all([
      store.record(of('web:b_1', 'c-1'), { tokens: 100, calls: 1, costMicros: 30 }, AT),
      store.record(of('web:b_1', 'c-2'), { tokens: 50, calls: 1, costMicros: 20 }, AT),
      store.record(of('web:b_2', 'c-3'), { tokens: 7, calls: 2 }, AT),
      // A record of the next day in the same batch counts on that day.
      store.record(of('web:b_2', 'c-3'), { tokens: 1, calls: 1 }, tomorrow),
    ]);
    expect(scripts).toHaveBeenCalledTimes(1);
    expect(await store.usage('sender', 'web:b_1', AT)).toEqual({ day: { tokens: 150, calls: 2, costMicros: 50 }, month: { tokens: 150, calls: 2 } });
    expect(await store.usage('conversation', 'c-3', AT)).toEqual({ day: { tokens: 7, calls: 2 }, month: { tokens: 8, calls: 3 } });
    expect(await store.usage('deployment', 'all', AT)).toEqual({ day: { tokens: 157, calls: 4, costMicros: 50 }, month: { tokens: 158, calls: 5 } });
    expect(await store.usage('deployment', 'all', tomorrow)).toEqual({ day: { tokens: 1, calls: 1 }, month: { tokens: 158, calls: 5 } });
    expect(await store.topToday('sender', AT, 10)).toEqual([{ id: 'web:b_1', tokens: 150, calls: 2, costMicros: 50 }, { id: 'web:b_2', tokens: 7, calls: 2 }]);
    expect(await store.topToday('conversation', tomorrow, 10)).toEqual([{ id: 'c-3', tokens: 1, calls: 1 }]);
    // Every key of the batch got its own period's expiry.
    expect(await redis.expiretime(`${prefix()}:budget:top:sender:d:2031-05-21`)).toBe(Date.parse('2031-05-22T01:00:00.000Z') / 1000);
    expect(await redis.expiretime(`${prefix()}:budget:sender:web:b_1:d:2031-05-20`)).toBe(Date.parse('2031-05-21T01:00:00.000Z') / 1000);
  });

  it('fails every record of a batch whose script failed', async () => {
    await redis.set(`${prefix()}:budget:deployment:all:d:2031-05-20`, 'not a hash');
    const results = await Promise.allSettled([store.record(scopes(), { tokens: 1, calls: 1 }, AT), store.record(scopes(), { tokens: 2, calls: 1 }, AT)]);
    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual([expect.stringContaining('WRONGTYPE'), expect.stringContaining('WRONGTYPE')]);
  });

  it('lists the day\'s biggest senders and conversations by tokens', async () => {
    const of = (sender: string, conversation: string): ScopeLimits[] => [
      { scope: 'sender', id: sender, limits: {} },
      { scope: 'conversation', id: conversation, limits: {} },
      { scope: 'deployment', id: 'all', limits: {} },
    ];
    await store.record(of('person:ada', 'c-1'), { tokens: 100, calls: 1 }, AT);
    await store.record(of('person:ada', 'c-2'), { tokens: 100, calls: 1 }, AT);
    await store.record(of('web:b_2', 'c-3'), { tokens: 150, calls: 1 }, AT);
    expect(await store.topToday('sender', AT, 10)).toEqual([{ id: 'person:ada', tokens: 200, calls: 2 }, { id: 'web:b_2', tokens: 150, calls: 1 }]);
    expect(await store.topToday('conversation', AT, 1)).toEqual([{ id: 'c-3', tokens: 150, calls: 1 }]);
    expect(await store.topToday('sender', AT + 86_400_000, 10)).toEqual([]);
  });
});
