/**
 * The app's `budgets:` in a process: what the turn runner checks and counts against (worker roles,
 * with the counts and refusals in `/metrics`) and the operator page's view of them (web roles).
 */
import type { BudgetsConfig } from '../src/runtime/app/app-types.ts';
import { periodWindow } from '../src/runtime/budgets/budget-periods.ts';
import { createBudgetStore, DEPLOYMENT_ID, type BudgetStore, type BudgetUsage } from '../src/runtime/budgets/budget-store.ts';
import { createTurnBudgets, type TurnBudgets } from '../src/runtime/budgets/turn-budgets.ts';
import type { BudgetsSnapshot, PeriodSpending } from './budgets-page.ts';
import type { ServiceCore } from './service-core.ts';

/** How many senders and conversations the operator page lists. */
const TOP_COUNT = 10;

function storeOf(core: Pick<ServiceCore, 'redis' | 'prefix'>): BudgetStore {
  return createBudgetStore({ redis: core.redis, prefix: core.prefix });
}

/**
 * The turn runner's budgets, counting into `switchboard_budget_tokens_total` and
 * `switchboard_budget_calls_total` (label `sender`: `known` or `unknown`) and
 * `switchboard_budget_refusals_total` (label `reason`); `undefined` for an app without budgets.
 */
export function turnBudgets(core: Pick<ServiceCore, 'app' | 'redis' | 'prefix' | 'metrics'>): TurnBudgets | undefined {
  const { budgets } = core.app;
  if (budgets === undefined) return undefined;
  return createTurnBudgets({
    store: storeOf(core),
    budgets,
    onCounted: (sender, tokens) => {
      core.metrics.count('switchboard_budget_tokens_total', { sender }, tokens);
      core.metrics.count('switchboard_budget_calls_total', { sender });
    },
    onRefused: (reason) => { core.metrics.count('switchboard_budget_refusals_total', { reason }); },
  });
}

function spending(period: 'day' | 'month', at: number, used: BudgetUsage, budgets: BudgetsConfig): PeriodSpending {
  const window = periodWindow(period, at);
  const limits = budgets.deployment;
  const tokenLimit = period === 'day' ? limits.tokensPerDay : limits.tokensPerMonth;
  const callLimit = period === 'day' ? limits.callsPerDay : limits.callsPerMonth;
  return {
    period: window.id,
    resetsAt: new Date(window.endsAt).toISOString(),
    tokens: used.tokens,
    calls: used.calls,
    ...(used.costMicros === undefined ? {} : { costUsd: used.costMicros / 1_000_000 }),
    ...(tokenLimit === undefined ? {} : { tokenLimit }),
    ...(callLimit === undefined ? {} : { callLimit }),
  };
}

/** The operator page's budgets snapshot, read now; `undefined` for an app without budgets. */
export function budgetsSnapshot(core: Pick<ServiceCore, 'app' | 'redis' | 'prefix'>, now: () => number = Date.now): (() => Promise<BudgetsSnapshot>) | undefined {
  const { budgets } = core.app;
  if (budgets === undefined) return undefined;
  const store = storeOf(core);
  return async () => {
    const at = now();
    const [deployment, topSenders, topConversations] = await Promise.all([
      store.usage('deployment', DEPLOYMENT_ID, at),
      store.topToday('sender', at, TOP_COUNT),
      store.topToday('conversation', at, TOP_COUNT),
    ]);
    return {
      deployment: { day: spending('day', at, deployment.day, budgets), month: spending('month', at, deployment.month, budgets) },
      topSenders,
      topConversations,
    };
  };
}
