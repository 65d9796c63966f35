/** Keeps the example app's prompts (and its commented schedule) in step with its tools and actors. */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import type { ActorConfig } from '../src/runtime/actor/actor-config.ts';
import { loadApp } from '../src/runtime/app/load-app.ts';
import { isToolModuleFile } from '../src/runtime/app/load-tools.ts';
import { resolveRecipient } from '../src/runtime/proactive/resolve-recipient.ts';
import { registerNotify } from '../service/proactive-wiring.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
let actors: readonly ActorConfig[] = [];
const tempDirs: string[] = [];

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

beforeAll(async () => {
  const app = await loadApp({
    dir: repoRoot,
    defaultModel: 'test-model',
    registry: createToolRegistry(),
    // notify is built in: the service registers it, as here (it sends nothing in these tests).
    registerBuiltins: registerNotify(['web', 'sms'], () => undefined),
  });
  actors = app.actors;
});

describe('the example actors', () => {
  it('mention in their prompt every tool they may call', () => {
    for (const actor of actors) {
      for (const tool of actor.tools) expect(actor.systemPrompt, `${actor.name} / ${tool}`).toContain(tool);
    }
  });

  it('pass turns only to actors that exist', () => {
    const names = actors.map((actor) => actor.name);
    const targets = actors.flatMap((actor) => [...actor.systemPrompt.matchAll(/passTo "([^"]+)"/g)].map((match) => match[1]));
    expect(targets).toEqual(['drafter']);
    for (const target of targets) expect(names).toContain(target);
  });
});

describe('the commented trip-summary schedule of switchboard.yaml', () => {
  it('loads once uncommented and Ada has an sms address, and texts her first', async () => {
    const text = readFileSync(join(repoRoot, 'switchboard.yaml'), 'utf8');
    const at = text.indexOf('# schedules:');
    expect(at).toBeGreaterThan(0);
    const enabled = (text.slice(0, at) + text.slice(at).replace(/^# ?/gm, '')).replace(
      'email: [ada@example.com]',
      'email: [ada@example.com]\n      sms: ["+447700900123"]',
    );
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-example-'));
    tempDirs.push(dir);
    // The example app's actors and tools, as they are: each tool file re-exports the repository's.
    mkdirSync(join(dir, 'tools'));
    for (const name of readdirSync(join(repoRoot, 'tools')).filter(isToolModuleFile)) {
      writeFileSync(join(dir, 'tools', name), `export { default } from ${JSON.stringify(join(repoRoot, 'tools', name))};\n`);
    }
    cpSync(join(repoRoot, 'actors'), join(dir, 'actors'), { recursive: true });
    writeFileSync(join(dir, 'switchboard.yaml'), enabled);
    const app = await loadApp({ dir, defaultModel: 'test-model', registry: createToolRegistry(), registerBuiltins: registerNotify(['web', 'sms'], () => undefined) });
    expect(app.schedules).toEqual([
      {
        id: 'trip-summary-sms',
        cron: '0 8 * * 1-5',
        timezone: 'Europe/London',
        actor: 'concierge',
        prompt: expect.stringContaining('call upcoming_trips and answer with its summary') as unknown,
        to: { personId: 'ada' },
        enabled: true,
      },
    ]);
    const to = app.schedules?.[0]?.to ?? { personId: '' };
    expect(resolveRecipient(to, { people: app.people, enabledChannels: ['web', 'email', 'sms'] })).toMatchObject({ ok: true, destination: { channel: 'sms', address: '+447700900123' } });
  });
});
