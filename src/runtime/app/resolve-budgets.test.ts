import { afterAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { AppProblems } from './app-problems.ts';
import { appProblems, removeApps, VALID_APP, writeApp } from './app-test-fixtures.ts';
import type { Person, SwitchboardConfig } from './app-types.ts';
import { loadApp } from './load-app.ts';
import { resolveBudgets } from './resolve-budgets.ts';

afterAll(removeApps);

const ADA: Person = { id: 'ada', name: 'Ada', addresses: { web: [], email: [], sms: [], slack: [], whatsapp: [] }, roles: [] };

function resolved(budgets: SwitchboardConfig['budgets']): { budgets: ReturnType<typeof resolveBudgets>; problems: AppProblems } {
  const problems = new AppProblems();
  return { budgets: resolveBudgets({ app: 'a', entryActor: 'main', ...(budgets === undefined ? {} : { budgets }) }, [ADA], problems), problems };
}

describe('budgets of switchboard.yaml', () => {
  it('default to limits for unknown senders and a turn rate only', () => {
    const { budgets, problems } = resolved(undefined);
    expect(budgets).toEqual({
      unknownSenders: { tokensPerDay: 200_000, callsPerDay: 100 },
      knownSenders: {},
      people: {},
      conversations: {},
      deployment: {},
      turnsPerMinute: 10,
    });
    expect(problems.size).toBe(0);
  });

  it('fill each field on its own, lift one with unlimited, and give a person the known limits they leave out', () => {
    const { budgets, problems } = resolved({
      unknownSenders: { tokensPerDay: 'unlimited', callsPerMonth: 1000 },
      knownSenders: { tokensPerDay: 2_000_000, callsPerDay: 500 },
      people: { ada: { callsPerDay: 'unlimited', tokensPerMonth: 0 } },
      deployment: { tokensPerMonth: 50_000_000 },
      turnsPerMinute: 'unlimited',
    });
    expect(budgets).toEqual({
      unknownSenders: { callsPerDay: 100, callsPerMonth: 1000 },
      knownSenders: { tokensPerDay: 2_000_000, callsPerDay: 500 },
      people: { ada: { tokensPerDay: 2_000_000, tokensPerMonth: 0 } },
      conversations: {},
      deployment: { tokensPerMonth: 50_000_000 },
    });
    expect(problems.size).toBe(0);
  });

  it('name each bad limit, a rate of 0 and an unknown person', () => {
    const { problems } = resolved({
      conversations: { tokensPerDay: -1, callsPerDay: 2.5 },
      deployment: { callsPerMonth: 'lots' as unknown as number },
      people: { grace: { callsPerDay: 3 } },
      turnsPerMinute: 0,
    });
    expect(problems.list()).toEqual([
      { file: 'switchboard.yaml', field: 'budgets.people.grace', message: '"grace" is not the id of a person in people' },
      { file: 'switchboard.yaml', field: 'budgets.turnsPerMinute', message: 'must be 1 or more, or unlimited' },
      { file: 'switchboard.yaml', field: 'budgets.conversations.tokensPerDay', message: 'must be a whole number of 0 or more, or unlimited' },
      { file: 'switchboard.yaml', field: 'budgets.conversations.callsPerDay', message: 'must be a whole number of 0 or more, or unlimited' },
      { file: 'switchboard.yaml', field: 'budgets.deployment.callsPerMonth', message: 'must be a whole number of 0 or more, or unlimited' },
    ]);
  });

  it('are loaded with the app, and an unknown key fails the load', async () => {
    const config = VALID_APP['switchboard.yaml'] as Record<string, unknown>;
    const app = await loadApp({ dir: writeApp({ ...VALID_APP, 'switchboard.yaml': { ...config, budgets: { conversations: { callsPerDay: 30 } } } }), defaultModel: 'm', registry: createToolRegistry() });
    expect(app.budgets?.conversations).toEqual({ callsPerDay: 30 });
    expect(app.budgets?.unknownSenders).toEqual({ tokensPerDay: 200_000, callsPerDay: 100 });
    const wrong = { ...VALID_APP, 'switchboard.yaml': { ...config, budgets: { conversation: { callsPerDay: 30 } } } };
    const problems = await appProblems(loadApp({ dir: writeApp(wrong), defaultModel: 'm', registry: createToolRegistry() }));
    expect(problems).toEqual([expect.objectContaining({ file: 'switchboard.yaml', field: 'budgets.conversation' })]);
  });
});
