import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { DEFAULT_ACTOR_LIMITS } from '../actor/actor-config.ts';
import { resolveActors } from '../actor/resolved-actor.ts';
import { appProblems, removeApps, toolModule, VALID_APP, writeApp, type AppFiles } from './app-test-fixtures.ts';
import { DEFAULT_APPROVAL_EXPIRY_MINUTES } from './app-types.ts';
import { createNotifyTool } from '../proactive/notify-tool.ts';
import { BUILTIN_TOOLS_FILE, loadApp, type LoadAppOptions } from './load-app.ts';

afterAll(removeApps);

const DEFAULT_MODEL = 'default-model';

function load(files: AppFiles, registry = createToolRegistry()): ReturnType<typeof loadApp> {
  return loadApp({ dir: writeApp(files), defaultModel: DEFAULT_MODEL, registry });
}

function withSwitchboard(overrides: Record<string, unknown>): AppFiles {
  return { ...VALID_APP, 'switchboard.yaml': { ...(VALID_APP['switchboard.yaml'] as Record<string, unknown>), ...overrides } };
}

describe('a valid app', () => {
  it('loads actors with defaults filled and registers the tool modules', async () => {
    const registry = createToolRegistry();
    const app = await load(VALID_APP, registry);
    expect(app.name).toBe('demo');
    expect(app.entryActor).toBe('helper');
    expect(app.tools).toEqual(['lookup', 'pay']);
    expect(registry.names()).toEqual(['lookup', 'pay']);
    expect(app.actors).toEqual([
      { name: 'helper', model: 'custom-model', systemPrompt: 'Help people.', tools: ['lookup', 'pay'], midTurn: 'steer', limits: DEFAULT_ACTOR_LIMITS },
      { name: 'writer', model: DEFAULT_MODEL, systemPrompt: 'Write things.', tools: [], midTurn: 'followup', limits: { ...DEFAULT_ACTOR_LIMITS, maxModelCalls: 3 } },
    ]);
  });

  it('runs the handler of a TypeScript tool module', async () => {
    const registry = createToolRegistry();
    await load(VALID_APP, registry);
    const ctx = { actorName: 'helper', sessionId: 's', turnId: 't' };
    expect(await registry.require('pay').handler({ amount: 3 }, ctx)).toBe('paid 3');
  });

  it('routes every channel, sending those left out to the entry actor', async () => {
    const app = await load(VALID_APP);
    expect(app.channels).toEqual({
      web: { actor: 'helper' },
      email: { actor: 'writer', midTurn: 'followup' },
      sms: { actor: 'helper' },
      slack: { actor: 'helper' },
      whatsapp: { actor: 'helper' },
      a2a: { actor: 'helper', midTurn: 'followup' },
    });
  });

  it('fills people and approvals', async () => {
    const app = await load(VALID_APP);
    expect(app.people).toEqual([
      { id: 'sam', name: 'Sam Example', addresses: { web: [], email: ['sam@example.com'], sms: ['+447700900123'], slack: [], whatsapp: [] }, roles: ['approver'] },
    ]);
    expect(app.approvals).toEqual([
      { tool: 'pay', approvers: ['sam', 'role:approver'], allowRequester: false, expiresInMinutes: DEFAULT_APPROVAL_EXPIRY_MINUTES },
    ]);
    expect(app.config.app).toBe('demo');
  });

  it('needs only switchboard.yaml and one actor', async () => {
    const app = await load({
      'switchboard.yaml': { app: 'tiny', entryActor: 'solo' },
      'actors/solo.yaml': { name: 'solo', system: 'Answer.' },
    });
    expect(app.actors.map((actor) => actor.name)).toEqual(['solo']);
    expect(app.people).toEqual([]);
    expect(app.approvals).toEqual([]);
    expect(app.tools).toEqual([]);
  });

  it('lets actors list tools registered before loading', async () => {
    const registry = createToolRegistry();
    registry.register({ name: 'builtin', description: 'Built in.', scope: 'generalist', inputSchema: { type: 'object' }, handler: () => null });
    const app = await load(
      { 'switchboard.yaml': { app: 'x', entryActor: 'solo' }, 'actors/solo.yaml': { name: 'solo', system: 'Hi.', tools: ['builtin'] } },
      registry,
    );
    expect(app.actors[0]?.tools).toEqual(['builtin']);
  });
});

describe('actor file problems', () => {
  it('names the file and field of each schema violation', async () => {
    const problems = await appProblems(
      load({
        ...VALID_APP,
        'actors/writer.yaml': { name: 'writer', system: '   ', midTurn: 'later', limits: { maxModelCalls: 0, turnDeadlineMs: 1.5, speed: 2 }, colour: 'red' },
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { file: 'actors/writer.yaml', field: 'colour', message: expect.stringContaining('is not a known key; allowed: name, model, system') as string },
        { file: 'actors/writer.yaml', field: 'system', message: 'must be the system prompt, a non-empty text' },
        { file: 'actors/writer.yaml', field: 'midTurn', message: 'must be one of "steer", "followup"' },
        { file: 'actors/writer.yaml', field: 'limits.maxModelCalls', message: 'must be >= 1' },
        { file: 'actors/writer.yaml', field: 'limits.turnDeadlineMs', message: 'must be integer' },
        { file: 'actors/writer.yaml', field: 'limits.speed', message: expect.stringContaining('is not a known key') as string },
      ]),
    );
  });

  it('requires system and a name equal to the file name', async () => {
    const problems = await appProblems(
      load({ ...VALID_APP, 'actors/writer.yaml': { name: 'author' }, 'actors/extra.yaml': { name: 'other', system: 'x' } }),
    );
    expect(problems).toContainEqual({ file: 'actors/writer.yaml', field: 'system', message: 'is required' });
    expect(problems).toContainEqual({ file: 'actors/extra.yaml', field: 'name', message: 'is "other" but must equal the file name "extra"' });
  });

  it('reports an unknown tool with the known ones', async () => {
    const problems = await appProblems(load({ ...VALID_APP, 'actors/writer.yaml': { name: 'writer', system: 'x', tools: ['lookup', 'seach'] } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'actors/writer.yaml', field: 'tools' });
    expect(problems[0]?.message).toContain('"seach"');
    expect(problems[0]?.message).toContain('Known tools: lookup, pay');
  });

  it('reports YAML syntax errors with their position, and .yml files', async () => {
    const problems = await appProblems(
      load({ ...VALID_APP, 'actors/writer.yaml': 'name: writer\nsystem: [unclosed\n', 'actors/old.yml': 'name: old\n' }),
    );
    expect(problems).toContainEqual({ file: 'actors/old.yml', message: 'actor files must end in .yaml, not .yml' });
    const syntax = problems.find((problem) => problem.file === 'actors/writer.yaml');
    expect(syntax?.message).toMatch(/^is not valid YAML.*line \d+, column \d+/);
  });

  it('needs an actors folder with at least one actor', async () => {
    const problems = await appProblems(load({ 'switchboard.yaml': { app: 'x', entryActor: 'solo' } }));
    expect(problems).toContainEqual({ file: 'actors/', message: expect.stringContaining('folder not found') as string });
    expect(problems).toContainEqual({ file: 'switchboard.yaml', field: 'entryActor', message: expect.stringContaining('"solo" is not an actor') as string });
  });
});

describe('switchboard.yaml problems', () => {
  it('reports a missing file', async () => {
    const problems = await appProblems(load({ ...VALID_APP, 'switchboard.yaml': undefined }));
    expect(problems).toEqual([{ file: 'switchboard.yaml', message: 'file not found' }]);
  });

  it('names each field that breaks the schema', async () => {
    const problems = await appProblems(
      load(
        withSwitchboard({
          app: undefined,
          channels: { fax: { actor: 'helper' }, a2a: {} },
          people: [{ id: 'Sam!', name: 'Sam', addresses: { email: ['not-an-email'], sms: ['07700 900123'], pager: ['1'] } }],
          approvals: [{ tool: 'pay', approvers: ['sam'], expiresInMinutes: 0 }],
        }),
      ),
    );
    const at = (field: string): string | undefined => problems.find((problem) => problem.field === field)?.message;
    expect(problems.every((problem) => problem.file === 'switchboard.yaml')).toBe(true);
    expect(at('app')).toBe('is required');
    expect(at('channels.fax')).toContain('is not a known key; allowed: web, email, sms, slack');
    // A channel's route may leave its actor out (the entry actor answers); the a2a route may not.
    expect(at('channels.a2a.actor')).toBe('is required');
    expect(at('people[0].id')).toContain('must be an id of lower-case letters');
    expect(at('people[0].addresses.email[0]')).toBe('must be an email address');
    expect(at('people[0].addresses.sms[0]')).toBe('must be an E.164 phone number such as +447700900123');
    expect(at('people[0].addresses.pager')).toContain('is not a known key');
    expect(at('approvals[0].expiresInMinutes')).toBe('must be >= 1');
  });

  it('reads a channel\'s send limits and names what is wrong in them', async () => {
    const limits = { perConversation: { max: 5, perSeconds: 3 }, perMethod: { 'chat.postMessage': { max: 1200, perSeconds: 60 } }, concurrency: 16 };
    const app = await load(withSwitchboard({ channels: { slack: { sendLimits: limits } } }));
    expect(app.channels.slack.sendLimits).toEqual(limits);
    const problems = await appProblems(load(withSwitchboard({ channels: { sms: { sendLimits: { perChannel: { max: 0, perSeconds: 1 }, perMethod: { messages: { max: 2 } }, concurrency: 100, burst: 3 } } } })));
    const at = (field: string): string | undefined => problems.find((problem) => problem.field === field)?.message;
    expect(at('channels.sms.sendLimits.perChannel.max')).toBe('must be >= 1');
    expect(at('channels.sms.sendLimits.concurrency')).toBe('must be <= 64');
    expect(at('channels.sms.sendLimits.burst')).toContain('is not a known key');
    expect(at('channels.sms.sendLimits.perMethod.messages.perSeconds')).toBe('is required');
  });

    it('checks that actors named in entryActor and channels exist', async () => {
    const problems = await appProblems(load(withSwitchboard({ entryActor: 'nobody', channels: { sms: { actor: 'ghost' } } })));
    expect(problems).toEqual([
      { file: 'switchboard.yaml', field: 'entryActor', message: '"nobody" is not an actor of this app. Actors: helper, writer' },
      { file: 'switchboard.yaml', field: 'channels.sms.actor', message: '"ghost" is not an actor of this app. Actors: helper, writer' },
    ]);
  });

  it('rejects a person id used twice and an address shared by two people', async () => {
    const problems = await appProblems(
      load(
        withSwitchboard({
          people: [
            { id: 'sam', name: 'Sam', addresses: { email: ['sam@example.com'] }, roles: ['approver'] },
            { id: 'sam', name: 'Other Sam', addresses: { email: ['SAM@example.com'] } },
          ],
        }),
      ),
    );
    expect(problems).toEqual([
      { file: 'switchboard.yaml', field: 'people[1].id', message: '"sam" is already the id of people[0]' },
      {
        file: 'switchboard.yaml',
        field: 'people[1].addresses.email[0]',
        message: '"sam@example.com" is already an address of people[0]; an address must identify one person',
      },
    ]);
  });

  it('checks approvals against tools, people and roles', async () => {
    const problems = await appProblems(
      load(
        withSwitchboard({
          approvals: [
            { tool: 'pay', approvers: ['sam', 'alex', 'role:boss'] },
            { tool: 'lookup', approvers: ['sam'] },
            { tool: 'refund', approvers: [] },
            { tool: 'pay', approvers: ['sam'] },
          ],
        }),
      ),
    );
    expect(problems).toEqual([
      { file: 'switchboard.yaml', field: 'approvals[0].approvers[1]', message: '"alex" is not the id of a person in people' },
      { file: 'switchboard.yaml', field: 'approvals[0].approvers[2]', message: 'no person has the role "boss"' },
      {
        file: 'switchboard.yaml',
        field: 'approvals[1].tool',
        message: 'tool "lookup" never requires approval (its requiresApproval is false), so this entry would never apply',
      },
      { file: 'switchboard.yaml', field: 'approvals[2].tool', message: 'unknown tool "refund". Known tools: lookup, pay' },
      { file: 'switchboard.yaml', field: 'approvals[2].approvers', message: 'is empty and allowRequester is not true, so nobody could approve' },
      { file: 'switchboard.yaml', field: 'approvals[3].tool', message: '"pay" is already configured by approvals[0]' },
    ]);
  });

  it('accepts an approval only the requester gives', async () => {
    const app = await load(withSwitchboard({ approvals: [{ tool: 'pay', approvers: [], allowRequester: true, expiresInMinutes: 5 }] }));
    expect(app.approvals).toEqual([{ tool: 'pay', approvers: [], allowRequester: true, expiresInMinutes: 5 }]);
  });
});

describe('built-in tools', () => {
  it('registers them with the people before actors and approvals are checked, and records a throw', async () => {
    const seen: { people: string[]; approvalTools: string[] }[] = [];
    const problems = await appProblems(
      loadApp({
        dir: writeApp({ ...VALID_APP, 'actors/writer.yaml': { name: 'writer', system: 'x', tools: ['builtin'] } }),
        defaultModel: DEFAULT_MODEL,
        registry: createToolRegistry(),
        registerBuiltins: (registry, app) => {
          seen.push({ people: app.people.map((person) => person.id), approvalTools: [...app.approvalTools] });
          registry.register({ name: 'builtin', description: 'Built in.', scope: 'generalist', inputSchema: { type: 'object' }, handler: () => null });
          throw new Error('second built-in refused');
        },
      }),
    );
    expect(seen).toEqual([{ people: ['sam'], approvalTools: ['pay'] }]);
    expect(problems).toEqual([{ file: BUILTIN_TOOLS_FILE, message: 'second built-in refused' }]);
  });
});

describe('tool module problems', () => {
  it('reports a module without a usable default export', async () => {
    const problems = await appProblems(
      load({
        ...VALID_APP,
        'tools/named.mjs': 'export const tool = {};\n',
        'tools/fn.js': 'export default function tool() {}\n',
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { file: 'tools/named.mjs', field: 'default export', message: expect.stringContaining('found no default export') as string },
        { file: 'tools/fn.js', field: 'default export', message: expect.stringContaining('found a function') as string },
      ]),
    );
  });

  it('reports what the registry rejects, naming the file', async () => {
    const problems = await appProblems(
      load({
        ...VALID_APP,
        'tools/bad_scope.mjs': toolModule('bad_scope', "  routing: 'bypass',"),
        'tools/bad_schema.mjs': toolModule('bad_schema', "  outputSchema: { type: 'nope' },"),
      }),
    );
    expect(problems).toContainEqual({ file: 'tools/bad_scope.mjs', message: expect.stringContaining('a generalist tool always routes') as string });
    expect(problems).toContainEqual({
      file: 'tools/bad_schema.mjs',
      field: 'outputSchema',
      message: expect.stringContaining('outputSchema is not a valid JSON Schema') as string,
    });
  });

  it('names both files of a duplicate tool name', async () => {
    const problems = await appProblems(load({ ...VALID_APP, 'tools/zz_lookup_again.mjs': toolModule('lookup') }));
    expect(problems).toEqual([
      { file: 'tools/zz_lookup_again.mjs', message: 'Tool "lookup" is already registered. (first defined in tools/lookup.mjs)' },
    ]);
  });

  it('reports a module that fails to import', async () => {
    const problems = await appProblems(load({ ...VALID_APP, 'tools/broken.mjs': 'export default {;\n' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'tools/broken.mjs', message: expect.stringMatching(/^cannot be imported: /) as string });
  });
});

it('collects problems of every file into one error', async () => {
  const problems = await appProblems(
    load({
      ...withSwitchboard({ entryActor: 'nobody' }),
      'actors/writer.yaml': { name: 'writer', system: 'x', tools: ['missing'] },
      'tools/empty.mjs': '',
    }),
  );
  expect(problems.map((problem) => problem.file)).toEqual(['tools/empty.mjs', 'actors/writer.yaml', 'switchboard.yaml']);
});

describe('the example app in the repository', () => {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  // The concierge lists the built-in notify, which the service registers.
  const registerNotify: LoadAppOptions['registerBuiltins'] = (registry, { people }) => {
    registry.register(createNotifyTool({ people, enabledChannels: ['web'], requiresApproval: false, send: () => Promise.resolve() }));
  };

  it('loads, and every actor resolves its tools', async () => {
    const registry = createToolRegistry();
    const app = await loadApp({ dir: repoRoot, defaultModel: DEFAULT_MODEL, registry, registerBuiltins: registerNotify });
    expect(app.entryActor).toBe('concierge');
    expect(app.channels.web.actor).toBe('concierge');
    expect(app.tools).toEqual(['book_flight', 'format_itinerary', 'search_flights', 'upcoming_trips']);
    const actors = resolveActors(app.actors, registry);
    expect([...actors.keys()]).toEqual(['concierge', 'drafter']);
    expect([...(actors.get('concierge')?.tools.keys() ?? [])]).toEqual(['search_flights', 'book_flight', 'format_itinerary', 'upcoming_trips', 'notify']);
    expect(actors.get('concierge')?.terminalTools.map((tool) => tool.name)).toEqual(['format_itinerary']);
    expect(actors.get('drafter')?.tools.size).toBe(0);
    expect(app.approvals).toEqual([{ tool: 'book_flight', approvers: [], allowRequester: true, expiresInMinutes: 30 }]);
  });
});
