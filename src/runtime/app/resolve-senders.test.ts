import { afterAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { appProblems, removeApps, writeApp } from './app-test-fixtures.ts';
import { loadApp } from './load-app.ts';

afterAll(removeApps);

function load(channels: Record<string, unknown>) {
  return loadApp({
    dir: writeApp({ 'switchboard.yaml': { app: 'senders', entryActor: 'solo', channels }, 'actors/solo.yaml': { name: 'solo', system: 'Answer.' } }),
    defaultModel: 'model',
    registry: createToolRegistry(),
  });
}

describe('channels.<id>.senders', () => {
  it('reads a mode alone or with its settings; channels that set none keep their default (no mode)', async () => {
    const app = await load({
      sms: { senders: 'open' },
      email: { actor: 'solo', senders: { mode: 'allowlist', allow: ['*@Example.com', 'grace@partner.org'], refusal: 'never' } },
      whatsapp: { senders: { mode: 'pairing', allow: ['+44*'] } },
    });
    expect(app.senders).toEqual({
      web: { allow: [] },
      email: { mode: 'allowlist', allow: ['*@example.com', 'grace@partner.org'], refusal: 'never' },
      sms: { mode: 'open', allow: [] },
      slack: { allow: [] },
      whatsapp: { mode: 'pairing', allow: ['+44*'] },
    });
    // A route that only sets senders is answered by the entry actor, and keeps no senders key.
    expect(app.channels.sms).toEqual({ actor: 'solo' });
    expect(app.channels.email).toEqual({ actor: 'solo' });
  });

  it('names each mistake with its field', async () => {
    const problems = await appProblems(load({
      sms: { senders: 'closed' },
      email: { senders: { mode: 'allowlist', allow: ['example.com', 'ada@example.com', 'ADA@example.com'], refusal: 'sometimes', extra: 1 } },
      slack: { senders: { allow: ['T1:*'] } },
      whatsapp: { senders: { mode: 'open', allow: ['+44*'], refusal: 'daily' } },
      web: { senders: { mode: 'allowlist', allow: ['*'] } },
    }));
    const byField: Record<string, string> = Object.fromEntries(problems.map((problem): [string, string] => [problem.field ?? '', problem.message]));
    expect(byField['channels.sms.senders']).toBe('must be one of "open", "allowlist", "pairing", or { mode, allow, refusal }');
    expect(byField['channels.email.senders.extra']).toBe('is not a known key; allowed: mode, allow, refusal');
    expect(byField['channels.email.senders.allow[0]']).toContain('*@example.com');
    expect(byField['channels.email.senders.allow[2]']).toBe('"ada@example.com" is listed twice');
    expect(byField['channels.email.senders.refusal']).toContain('"daily"');
    expect(byField['channels.slack.senders.mode']).toBe('is required: "open", "allowlist", "pairing"');
    expect(byField['channels.whatsapp.senders.allow']).toContain('no effect with mode open');
    expect(byField['channels.whatsapp.senders.refusal']).toContain('allowlist only');
    expect(byField['channels.web.senders.allow[0]']).toContain('senders: open');
  });

  it('has no place on the a2a route: peers present bearer tokens', async () => {
    const problems = await appProblems(load({ a2a: { actor: 'solo', senders: 'open' } }));
    expect(problems).toEqual([{ file: 'switchboard.yaml', field: 'channels.a2a.senders', message: 'is not a known key; allowed: actor' }]);
  });
});
