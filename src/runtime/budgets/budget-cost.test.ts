import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { createBudgetStore } from './budget-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const AT = Date.parse('2031-05-20T10:00:00.000Z');

describe('budget counters of cost', () => {
  it("add each call's cost to the sender's and the deployment's day, never to a month or a conversation", async () => {
    const store = createBudgetStore({ redis: await connect(), prefix: prefix() });
    const scopes = [{ scope: 'sender' as const, id: 'person:ada' }, { scope: 'conversation' as const, id: 'ses_1' }, { scope: 'deployment' as const, id: 'all' }];
    await store.record(scopes, { tokens: 100, calls: 1, costMicros: 1500 }, AT);
    await store.record(scopes, { tokens: 50, calls: 1, costMicros: 500 }, AT);
    await store.record(scopes, { tokens: 10, calls: 1 }, AT);
    expect(await store.usage('sender', 'person:ada', AT)).toEqual({ day: { tokens: 160, calls: 3, costMicros: 2000 }, month: { tokens: 160, calls: 3 } });
    expect(await store.usage('deployment', 'all', AT)).toEqual({ day: { tokens: 160, calls: 3, costMicros: 2000 }, month: { tokens: 160, calls: 3 } });
    expect(await store.usage('conversation', 'ses_1', AT)).toEqual({ day: { tokens: 160, calls: 3 }, month: { tokens: 160, calls: 3 } });
    expect(await store.topToday('sender', AT, 5)).toEqual([{ id: 'person:ada', tokens: 160, calls: 3, costMicros: 2000 }]);
  });
});
