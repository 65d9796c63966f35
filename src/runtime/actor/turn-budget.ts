import { usageTokens, type BudgetedTurn } from '../budgets/turn-budgets.ts';
import { toMicros } from '../inspect/model-prices.ts';
import type { ModelUsage } from '../model/model-types.ts';
import type { LiveTurn } from './live-turn.ts';
import type { TurnScope } from './turn-end.ts';

function budgetedTurn(turn: LiveTurn): BudgetedTurn {
  return { turnId: turn.record.turnId, sessionId: turn.record.sessionId, first: turn.inbox[0] };
}

/**
 * Before a turn's first model call: fails the turn with the refusal's words (an error part, logged
 * with its reason) when its sender, its conversation or the deployment is over a budget, or the
 * sender over its turn rate; whether it did. A turn that already called the model (one resumed
 * after approvals, or going on after a tool call) always finishes. Call it after the turn's
 * injections were given to it, so the refused messages stay in the conversation's history.
 */
export async function refusedByBudget({ deps, turn, end, now }: TurnScope): Promise<boolean> {
  if (deps.budgets === undefined || turn.record.step !== 0) return false;
  const refusal = await deps.budgets.admit(budgetedTurn(turn), now());
  if (refusal === undefined) return false;
  await end.fail(refusal.reason, refusal.text);
  return true;
}

/**
 * Counts one model call of the turn, its usage and estimated cost (USD; `undefined` when unknown),
 * against the budgets, and adds them to what the turn spent (`spent` of its record). Does not wait
 * for Redis: the count joins {@link LiveTurn.counting}, which the turn awaits before it settles or
 * waits (a later step needs no admission, so nothing in between reads it).
 */
export function countModelCall({ deps, turn, now }: TurnScope, usage: ModelUsage, costUsd: number | undefined): void {
  const costMicros = costUsd === undefined ? 0 : toMicros(costUsd);
  const spent = turn.record.spent ?? { tokens: 0, costMicros: 0 };
  turn.record = { ...turn.record, spent: { tokens: spent.tokens + usageTokens(usage), costMicros: spent.costMicros + costMicros } };
  const counted = deps.budgets?.record(budgetedTurn(turn), usage, now(), costMicros);
  if (counted === undefined) return;
  const before = turn.counting;
  turn.counting = before === undefined ? counted : Promise.all([before, counted]).then(() => undefined);
  // Awaited at the turn's end; a failure must not go unhandled until then.
  turn.counting.catch(() => undefined);
}
