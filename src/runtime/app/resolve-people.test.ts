import { afterAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { AppProblems } from './app-problems.ts';
import { appProblems, removeApps, VALID_APP, writeApp } from './app-test-fixtures.ts';
import { loadApp } from './load-app.ts';
import { resolvePeople } from './resolve-people.ts';

afterAll(removeApps);

describe("people's web addresses", () => {
  it('are refused, each with a message explaining sign-in links, and grant nothing', () => {
    const problems = new AppProblems();
    const people = resolvePeople(
      { app: 'a', entryActor: 'main', people: [{ id: 'ada', name: 'Ada Lovelace', addresses: { web: ['web:ada', 'web:conv-7'], email: ['Ada@Example.com'] } }] },
      problems,
    );
    expect(people[0]?.addresses).toEqual({ web: [], email: ['ada@example.com'], sms: [], slack: [], whatsapp: [] });
    expect(problems.list().map((problem) => problem.field)).toEqual(['people[0].addresses.web[0]', 'people[0].addresses.web[1]']);
    const [first] = problems.list();
    expect(first?.message).toContain('"web:ada" cannot identify ada');
    expect(first?.message).toContain('one-time sign-in link');
    expect(first?.message).toContain('npx switchboard invite ada');
  });

  it('make the app fail to load, while an empty web list is fine', async () => {
    const config = VALID_APP['switchboard.yaml'] as Record<string, unknown>;
    const withWeb = { ...VALID_APP, 'switchboard.yaml': { ...config, people: [{ id: 'sam', name: 'Sam', addresses: { web: ['web:sam'] }, roles: ['approver'] }] } };
    const problems = await appProblems(loadApp({ dir: writeApp(withWeb), defaultModel: 'm', registry: createToolRegistry() }));
    expect(problems).toEqual([expect.objectContaining({ file: 'switchboard.yaml', field: 'people[0].addresses.web[0]' })]);
    const emptyWeb = { ...VALID_APP, 'switchboard.yaml': { ...config, people: [{ id: 'sam', name: 'Sam', addresses: { web: [] }, roles: ['approver'] }] } };
    const app = await loadApp({ dir: writeApp(emptyWeb), defaultModel: 'm', registry: createToolRegistry() });
    expect(app.people[0]?.addresses.web).toEqual([]);
  });
});
