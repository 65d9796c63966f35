import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL } from './models.ts';

/** Folder of the installed `@anthropic-ai/sdk` package. */
const sdkDir = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sdk'));

/** The model names of the SDK's `Model` type (a type only, so read from its declaration). */
function sdkModelNames(): string[] {
  const declarations = readFileSync(join(sdkDir, 'resources', 'messages', 'messages.d.ts'), 'utf8');
  const line = /^export type Model = (.*);$/m.exec(declarations)?.[1];
  if (line === undefined) throw new Error('`export type Model` not found in the SDK declarations');
  return [...line.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? '');
}

/**
 * The SDK's deprecation list. Its package exports do not expose it, so the module is imported by
 * file URL.
 */
async function sdkDeprecatedModels(): Promise<string[]> {
  const url = pathToFileURL(join(sdkDir, 'internal', 'data', 'deprecated-models.mjs')).href;
  const module = (await import(url)) as { DEPRECATED_MODELS?: unknown };
  const list = module.DEPRECATED_MODELS;
  if (typeof list !== 'object' || list === null) throw new Error('DEPRECATED_MODELS not found in the SDK');
  return Object.keys(list);
}

describe('default models', () => {
  it.each([DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL])('%s is a current model of the SDK', async (model) => {
    const known = sdkModelNames();
    expect(known.length).toBeGreaterThan(5);
    expect(known).toContain(model);
    const deprecated = await sdkDeprecatedModels();
    expect(deprecated.length).toBeGreaterThan(0);
    expect(deprecated).not.toContain(model);
  });
});
