import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { findTestFiles, runTestCommand } from './test-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-test-command-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('switchboard test', () => {
  it("finds an app's test files, not those of node_modules or dot-folders", async () => {
    for (const folder of ['tools', 'actors/deep', 'node_modules/pkg', '.data']) mkdirSync(join(dir, folder), { recursive: true });
    for (const file of ['tools/a.test.ts', 'tools/a.ts', 'actors/deep/b.test.mjs', 'node_modules/pkg/c.test.ts', '.data/d.test.ts']) writeFileSync(join(dir, file), '');
    expect(await findTestFiles(dir)).toEqual(['actors/deep/b.test.mjs', 'tools/a.test.ts']);
  });

  it('says so and fails when there is nothing to run', async () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    const err = new PassThrough();
    let said = '';
    err.on('data', (chunk: Buffer) => { said += chunk.toString(); });
    expect(await runTestCommand([], empty, err)).toBe(1);
    expect(said).toContain('no test files');
  });

  it('runs only the files it is given, and exits as they do', async () => {
    const app = mkdtempSync(join(dir, 'app-'));
    writeFileSync(join(app, 'passes.test.mjs'), "import test from 'node:test';\ntest('passes', () => {});\n");
    writeFileSync(join(app, 'fails.test.mjs'), "import test from 'node:test';\ntest('fails', () => { throw new Error('no'); });\n");
    const err = new PassThrough();
    expect(await runTestCommand(['passes.test.mjs'], app, err)).toBe(0);
    expect(await runTestCommand(['fails.test.mjs'], app, err)).toBe(1);
  }, 30_000);
});
