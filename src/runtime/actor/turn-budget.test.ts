import { describe, expect, it } from 'vitest';
import type { TurnBudgets } from '../budgets/turn-budgets.ts';
import type { LiveTurn } from './live-turn.ts';
import { countModelCall } from './turn-budget.ts';
import { sampleMessage, sampleTurnRecord } from './turn-test-kit.ts';
import type { TurnEnd, TurnScope } from './turn-end.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

const message = sampleMessage('web');
const record = sampleTurnRecord(message);

/** Budgets whose counts resolve or fail when the test says, one call after another. */
function heldBudgets(): { budgets: TurnBudgets; counted: { tokens: number; finish: (error?: Error) => void }[] } {
  const counted: { tokens: number; finish: (error?: Error) => void }[] = [];
  const budgets: TurnBudgets = {
    admit: () => Promise.resolve(undefined),
    record: (_turn, usage) => new Promise<void>((resolve, reject) => {
      counted.push({ tokens: usage.inputTokens + usage.outputTokens, finish: (error) => { if (error === undefined) resolve(); else reject(error); } });
    }),
  };
  return { budgets, counted };
}

function scopeOf(budgets: TurnBudgets): { scope: TurnScope; turn: LiveTurn } {
  const turn: LiveTurn = { record, inbox: [message], history: [] };
  const deps = { budgets } as unknown as TurnRunnerDeps;
  return { scope: { deps, turn, end: {} as TurnEnd, now: () => Date.parse('2026-03-01T12:00:01.000Z') }, turn };
}

const usage = { inputTokens: 300, outputTokens: 100, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };

describe('countModelCall', () => {
  it('adds the call to what the turn spent at once and leaves its count to be awaited with the turn\'s next writes', async () => {
    const { budgets, counted } = heldBudgets();
    const { scope, turn } = scopeOf(budgets);
    countModelCall(scope, usage, 0.002);
    countModelCall(scope, usage, undefined);
    expect(turn.record.spent).toEqual({ tokens: 800, costMicros: 2000 });
    expect(counted.map(({ tokens }) => tokens)).toEqual([400, 400]);
    let written = false;
    const waiting = turn.counting?.then(() => { written = true; });
    counted[0]?.finish();
    await Promise.resolve();
    expect(written).toBe(false);
    counted[1]?.finish();
    await waiting;
    expect(written).toBe(true);
  });

  it('keeps a failed count for the turn to throw when it awaits its counts, never as an unhandled rejection', async () => {
    const { budgets, counted } = heldBudgets();
    const { scope, turn } = scopeOf(budgets);
    countModelCall(scope, usage, undefined);
    counted[0]?.finish(new Error('Redis is away'));
    // Let the rejection settle before anything awaits it: an unhandled one would fail the run.
    await new Promise((resolve) => setImmediate(resolve));
    await expect(turn.counting).rejects.toThrow('Redis is away');
  });

  it('counts nothing and leaves nothing to await without budgets', () => {
    const { scope, turn } = scopeOf(undefined as unknown as TurnBudgets);
    countModelCall(scope, usage, undefined);
    expect(turn.counting).toBeUndefined();
    expect(turn.record.spent).toEqual({ tokens: 400, costMicros: 0 });
  });
});
