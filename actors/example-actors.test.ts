/** Keeps the example app's prompts in step with its tools and actors. */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import type { ActorConfig } from '../src/runtime/actor/actor-config.ts';
import { loadApp } from '../src/runtime/app/load-app.ts';

let actors: readonly ActorConfig[] = [];

beforeAll(async () => {
  const app = await loadApp({ dir: fileURLToPath(new URL('..', import.meta.url)), defaultModel: 'test-model', registry: createToolRegistry() });
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
