/**
 * The surface template the README shows is a working one: written into an app folder of its own,
 * it imports `switchboard`, loads, and makes a surface the checker (the one settlement applies)
 * finds nothing wrong with.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSurfaceMessage, type SurfaceTemplate } from 'switchboard';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'sb-readme-surface-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's surface template", () => {
  it('loads from an app folder and makes a valid surface with a Book button per item', async () => {
    const section = readme.slice(readme.indexOf('## Surfaces and actions'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    mkdirSync(join(dir, 'surfaces'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(repo, join(dir, 'node_modules', 'switchboard'), 'dir');
    writeFileSync(join(dir, 'surfaces', 'flight-results.ts'), code ?? '');
    const template = ((await import(pathToFileURL(join(dir, 'surfaces', 'flight-results.ts')).href)) as { default: SurfaceTemplate }).default;
    const message = template({ flights: [{ flightNumber: 'MW 304' }, { flightNumber: 'AU 1021' }] }, { surfaceId: 'flight-results', kind: 'flight-results', sessionId: 's1', turnId: 't1', mergeStrategy: 'replace' });
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(JSON.stringify(message)).toContain('"name":"book"');
  });
});
