import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runInitCommand } from './init-command.ts';

const cwd = mkdtempSync(join(tmpdir(), 'sb-init-command-'));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

const paths = { installation: join(cwd, 'no-installation'), cwd };

describe('switchboard init with a bad target', () => {
  it('asks for exactly one folder', async () => {
    for (const args of [[], ['a', 'b']]) {
      const refused = runInitCommand(args, paths, new PassThrough());
      await expect(refused).rejects.toMatchObject({ code: 'config.invalid' });
      await expect(refused).rejects.toThrow('usage: switchboard init <dir>');
    }
  });

  it('refuses a file, and leaves it be', async () => {
    writeFileSync(join(cwd, 'notes.txt'), 'mine');
    const refused = runInitCommand(['notes.txt'], paths, new PassThrough());
    await expect(refused).rejects.toMatchObject({ code: 'config.invalid' });
    await expect(refused).rejects.toThrow('is not empty');
    expect(readdirSync(cwd)).toEqual(['notes.txt']);
  });
});
