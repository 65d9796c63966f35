import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import type { BudgetsConfig } from '../app/app-types.ts';
import type { Injection } from '../injection.ts';
import type { ModelUsage } from '../model/model-types.ts';
import { scheduledInjection } from '../proactive/scheduled-injection.ts';
import { createBudgetStore, type BudgetStore } from './budget-store.ts';
import { budgetSender, createTurnBudgets, RATE_LIMIT_TEXT, refusalText, usageTokens, type BudgetedTurn } from './turn-budgets.ts';

function injection(sender: Injection['sender'], channel = 'sms'): Injection {
  return {
    id: `${channel}:m-1`, kind: 'message', channel, tenantId: 'default', conversationKey: '+15550100', sender, text: 'hello',
    replyTo: { channel, address: '+15550100' }, receivedAt: '2031-05-20T20:48:00.000Z',
  };
}

const STRANGER = injection({ id: '+15550100', verified: false });
const ADA = injection({ id: '+15550111', verified: true, personId: 'ada' });
const USAGE: ModelUsage = { inputTokens: 300, outputTokens: 50, cacheReadInputTokens: 1000, cacheCreationInputTokens: 150 };
const AT = Date.parse('2031-05-20T20:48:00.000Z');

describe('who a turn is counted against', () => {
  it('a person by id on any channel; peers and schedules are known; anyone else is unknown, by channel', () => {
    expect(budgetSender(ADA)).toEqual({ id: 'person:ada', kind: 'known', personId: 'ada' });
    expect(budgetSender(STRANGER)).toEqual({ id: 'sms:+15550100', kind: 'unknown' });
    expect(budgetSender(injection({ id: 'web:b_1', verified: true }, 'web'))).toEqual({ id: 'web:b_1', kind: 'unknown' });
    expect(budgetSender(injection({ id: 'peer:caller', verified: true, agent: true }, 'a2a'))).toEqual({ id: 'a2a:peer:caller', kind: 'known' });
    const tick = scheduledInjection({ id: 'digest', actor: 'main', prompt: 'Summarise.' }, new Date(AT), { channel: 'email', address: 'desk@example.com' }, 'default');
    expect(budgetSender(tick)).toEqual({ id: 'email:schedule:digest', kind: 'known' });
  });

  it('counts every token of a call: input, output, cache reads and cache writes', () => {
    expect(usageTokens(USAGE)).toBe(1500);
  });
});

describe('refusal words', () => {
  const resetsAt = Date.parse('2031-05-21T00:00:00.000Z');
  it('name the scope, the period and when it resets', () => {
    const at = resetsAt - (3 * 60 + 12) * 60_000;
    const over = { ok: false, scope: 'conversation', period: 'day', measure: 'tokens', used: 10, limit: 10, resetsAt } as const;
    expect(refusalText(over, at)).toBe("Today's limit for this conversation is reached; it resets at 00:00 UTC (in 3 h 12 min).");
    const month = { ...over, scope: 'sender', period: 'month', resetsAt: Date.parse('2031-06-01T00:00:00.000Z') } as const;
    expect(refusalText(month, AT)).toBe("You have reached this month's limit; it resets on 1 June at 00:00 UTC (in 11 days 3 h).");
    expect(refusalText({ ...over, scope: 'deployment' }, resetsAt - 59_000)).toBe("Today's limit for this service is reached; it resets at 00:00 UTC (in 1 min).");
    expect(refusalText({ ok: false, scope: 'rate', retryAfterMs: 1000 }, AT)).toBe(RATE_LIMIT_TEXT);
  });
});

describe('turn budgets', () => {
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

  const budgets: BudgetsConfig = {
    unknownSenders: { callsPerDay: 2 },
    knownSenders: {},
    people: { ada: { tokensPerDay: 3000 } },
    conversations: {},
    deployment: {},
  };
  const turn = (first: Injection, turnId: string, sessionId = 's-1'): BudgetedTurn => ({ turnId, sessionId, first });

  it('holds an unknown sender to the unknown limits and a person to their own, telling hooks what happened', async () => {
    const counted: string[] = [];
    const refused: string[] = [];
    const budgetsOf = createTurnBudgets({ store, budgets, onCounted: (kind, tokens) => counted.push(`${kind} ${String(tokens)}`), onRefused: (reason) => refused.push(reason) });
    for (const turnId of ['t-1', 't-2']) {
      expect(await budgetsOf.admit(turn(STRANGER, turnId, `s-${turnId}`), AT)).toBeUndefined();
      await budgetsOf.record(turn(STRANGER, turnId, `s-${turnId}`), USAGE, AT);
    }
    expect(await budgetsOf.admit(turn(STRANGER, 't-3', 's-3'), AT)).toEqual({ reason: 'budget_sender_day', text: expect.stringMatching(/^You have reached today's limit; it resets at 00:00 UTC \(in 3 h 12 min\)\.$/) as unknown });
    // Ada has spent 1500 of her 3000 tokens: one more turn, then none.
    await budgetsOf.record(turn(ADA, 't-4'), USAGE, AT);
    expect(await budgetsOf.admit(turn(ADA, 't-5'), AT)).toBeUndefined();
    await budgetsOf.record(turn(ADA, 't-5'), USAGE, AT);
    expect((await budgetsOf.admit(turn(ADA, 't-6'), AT))?.reason).toBe('budget_sender_day');
    expect(counted).toEqual(['unknown 1500', 'unknown 1500', 'known 1500', 'known 1500']);
    expect(refused).toEqual(['budget_sender_day', 'budget_sender_day']);
  });

  it('refuses a sender over its turn rate with the rate words', async () => {
    const budgetsOf = createTurnBudgets({ store, budgets: { ...budgets, unknownSenders: {}, turnsPerMinute: 2 } });
    expect(await budgetsOf.admit(turn(STRANGER, 't-1', 's-1'), AT)).toBeUndefined();
    expect(await budgetsOf.admit(turn(STRANGER, 't-2', 's-2'), AT + 1000)).toBeUndefined();
    expect(await budgetsOf.admit(turn(STRANGER, 't-3', 's-3'), AT + 2000)).toEqual({ reason: 'rate_limit', text: RATE_LIMIT_TEXT });
    expect(await budgetsOf.admit(turn(STRANGER, 't-3', 's-3'), AT + 60_001)).toBeUndefined();
  });

  it('asks nothing of Redis when no limit and no rate applies', async () => {
    const asked: string[] = [];
    const silent: BudgetStore = { ...store, admit: (...args) => { asked.push('admit'); return store.admit(...args); } };
    const budgetsOf = createTurnBudgets({ store: silent, budgets: { ...budgets, unknownSenders: {} } });
    expect(await budgetsOf.admit(turn(STRANGER, 't-1'), AT)).toBeUndefined();
    expect(asked).toEqual([]);
  });
});
