import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { appProblems, removeApps, VALID_APP, writeApp, type AppFiles } from './app-test-fixtures.ts';
import { DEFAULT_PEER_TIMEOUT_SECONDS } from './app-types.ts';
import { loadApp } from './load-app.ts';
import { peerToolName } from './resolve-peers.ts';

afterAll(removeApps);

const TOKENS: Readonly<Record<string, string>> = {
  PARTNER_TOKEN: 'p'.repeat(32),
  OTHER_TOKEN: 'o'.repeat(16),
  SHORT_TOKEN: 's'.repeat(15),
};

function withSwitchboard(overrides: Record<string, unknown>): AppFiles {
  return { ...VALID_APP, 'switchboard.yaml': { ...(VALID_APP['switchboard.yaml'] as Record<string, unknown>), ...overrides } };
}

function load(overrides: Record<string, unknown>, variables: Readonly<Record<string, string>> = TOKENS): ReturnType<typeof loadApp> {
  return loadApp({
    dir: writeApp(withSwitchboard(overrides)),
    defaultModel: 'm',
    registry: createToolRegistry(),
    environment: (name) => variables[name],
  });
}

describe('peers', () => {
  it('resolve tokens from the environment and fill defaults', async () => {
    const app = await load({
      channels: { a2a: { actor: 'writer' } },
      peers: [
        { id: 'partner-bot', name: 'Partner', token: 'env:PARTNER_TOKEN', url: 'https://partner.example.com/agent/', consumes: ['llm-context'], actor: 'helper', timeoutSeconds: 30 },
        { id: 'caller', name: 'Caller only', token: 'env:OTHER_TOKEN' },
      ],
    });
    expect(app.peers).toEqual([
      {
        id: 'partner-bot',
        name: 'Partner',
        toolName: 'ask_partner_bot',
        token: TOKENS['PARTNER_TOKEN'],
        tokenVariable: 'PARTNER_TOKEN',
        url: 'https://partner.example.com/agent',
        consumes: ['llm-context'],
        actor: 'helper',
        timeoutSeconds: 30,
      },
      { id: 'caller', name: 'Caller only', toolName: 'ask_caller', token: TOKENS['OTHER_TOKEN'], tokenVariable: 'OTHER_TOKEN', actor: 'writer', timeoutSeconds: DEFAULT_PEER_TIMEOUT_SECONDS },
    ]);
    expect(app.channels.a2a).toEqual({ actor: 'writer', midTurn: 'followup' });
  });

  it('are empty when none are declared, and default to the entry actor', async () => {
    expect((await load({})).peers).toEqual([]);
    const app = await load({ peers: [{ id: 'p', name: 'P', token: 'env:PARTNER_TOKEN' }] });
    expect(app.peers[0]?.actor).toBe('helper');
  });

  it('report an unset or short token variable, naming the peer and the variable but never the value', async () => {
    const problems = await appProblems(
      load({
        peers: [
          { id: 'a', name: 'A', token: 'env:MISSING_TOKEN' },
          { id: 'b', name: 'B', token: 'env:SHORT_TOKEN' },
        ],
      }),
    );
    expect(problems).toEqual([
      { file: 'switchboard.yaml', field: 'peers[0].token', message: 'the environment variable MISSING_TOKEN (the token of peer "a") is not set' },
      expect.objectContaining({ file: 'switchboard.yaml', field: 'peers[1].token' }),
    ]);
    expect(problems[1]?.message).toContain('SHORT_TOKEN (the token of peer "b") must be at least 16 characters');
    expect(JSON.stringify(problems)).not.toContain(TOKENS['SHORT_TOKEN']);
  });

  it('fail to load without an environment lookup', async () => {
    const problems = await appProblems(
      loadApp({ dir: writeApp(withSwitchboard({ peers: [{ id: 'a', name: 'A', token: 'env:PARTNER_TOKEN' }] })), defaultModel: 'm', registry: createToolRegistry() }),
    );
    expect(problems.map((problem) => problem.field)).toEqual(['peers[0].token']);
  });

  it('report duplicates, clashing tool names, shared tokens, bad URLs and unknown actors', async () => {
    const problems = await appProblems(
      load({
        peers: [
          { id: 'a-b', name: 'One', token: 'env:PARTNER_TOKEN', url: 'https://one.example.com' },
          { id: 'a-b', name: 'Two', token: 'env:OTHER_TOKEN' },
          { id: 'a_b', name: 'Three', token: 'env:PARTNER_TOKEN', url: 'https://user:pw@three.example.com' },
          { id: 'c', name: 'Four', token: 'env:OTHER_TOKEN', url: 'https://four.example.com/?x=1', actor: 'nobody' },
        ],
      }),
    );
    expect(problems.map((problem) => `${problem.field ?? ''}: ${problem.message}`)).toEqual([
      'peers[1].id: "a-b" is already the id of peers[0]',
      'peers[2].id: "a_b" gives the tool name ask_a_b, as peers[0] does ("-" becomes "_")',
      'peers[2].token: PARTNER_TOKEN holds the same token as the variable of peers[0]; each peer needs its own token, which identifies it',
      'peers[2].url: must not carry credentials; the token authenticates us',
      'peers[3].token: OTHER_TOKEN holds the same token as the variable of peers[1]; each peer needs its own token, which identifies it',
      'peers[3].actor: "nobody" is not an actor of this app. Actors: helper, writer',
      'peers[3].url: "https://four.example.com/?x=1" must have no query or fragment',
    ]);
  });

  it('check shapes with the schema: id, token reference, url scheme, consumes, timeout, a2a route keys', async () => {
    const problems = await appProblems(
      load({
        channels: { a2a: { actor: 'helper', midTurn: 'steer' } },
        peers: [{ id: 'Bad.Id', name: 'X', token: 'PARTNER_TOKEN', url: 'ftp://x.example.com', consumes: ['a', 'a'], timeoutSeconds: 0 }],
      }),
    );
    expect(problems.map((problem) => problem.field).sort()).toEqual(
      ['channels.a2a.midTurn', 'peers[0].consumes', 'peers[0].id', 'peers[0].timeoutSeconds', 'peers[0].token', 'peers[0].url'].sort(),
    );
    expect(problems.find((problem) => problem.field === 'peers[0].token')?.message).toBe(
      'must be env:<VARIABLE>, naming the environment variable that holds the bearer token',
    );
  });

  it('name their tool ask_<id> with "-" as "_"', () => {
    expect([peerToolName('travel-desk'), peerToolName('hr_bot'), peerToolName('x1')]).toEqual(['ask_travel_desk', 'ask_hr_bot', 'ask_x1']);
  });
});

describe('the commented-out peers example of the repository app', () => {
  it('loads once uncommented and its variable set', async () => {
    const text = readFileSync(new URL('../../../switchboard.yaml', import.meta.url), 'utf8');
    const lines = text.split('\n');
    const start = lines.indexOf('# peers:');
    expect(start).toBeGreaterThan(0);
    const end = lines.findIndex((line, index) => index > start && !line.startsWith('#   '));
    const uncommented = lines.map((line, index) => {
      if (index >= start && index < end) return line.slice(2);
      return /^ {2}# {1,3}(a2a:|actor:)/.test(line) ? line.replace('# ', '  ').slice(2) : line;
    });
    const example = parse(uncommented.join('\n')) as Record<string, unknown>;
    const files: AppFiles = {
      'switchboard.yaml': { app: 'example', entryActor: 'concierge', channels: example['channels'], peers: example['peers'] },
      'actors/concierge.yaml': { name: 'concierge', system: 'Help.' },
    };
    const app = await loadApp({ dir: writeApp(files), defaultModel: 'm', registry: createToolRegistry(), environment: (name) => (name === 'PARTNER_DESK_TOKEN' ? 'x'.repeat(64) : undefined) });
    expect(app.channels.a2a).toEqual({ actor: 'concierge', midTurn: 'followup' });
    expect(app.peers).toEqual([expect.objectContaining({ id: 'partner-desk', toolName: 'ask_partner_desk', url: 'https://partner.example.com', timeoutSeconds: 120 })]);
  });
});
