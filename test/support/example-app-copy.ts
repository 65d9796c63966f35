/**
 * The example app (this repository's actors, tools, surfaces and `switchboard.yaml`, without the
 * tests) copied into a temporary folder outside the repository, with `switchboard` linked into its
 * `node_modules` as `npm install` of this installation would: an app of one's own, whose bookings
 * land in its own `.data/`.
 */
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Copies the example app into a new temporary folder named `<prefix>…`; returns the folder. The caller removes it. */
export function copyExampleApp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const folder of ['actors', 'tools', 'surfaces']) {
    cpSync(join(repo, folder), join(dir, folder), { recursive: true, filter: (source) => !source.endsWith('.test.ts') });
  }
  cpSync(join(repo, 'switchboard.yaml'), join(dir, 'switchboard.yaml'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(repo, join(dir, 'node_modules', 'switchboard'), 'dir');
  return dir;
}
