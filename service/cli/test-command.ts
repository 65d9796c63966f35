/**
 * `switchboard test [files…]`: an app's tests on Node's own test runner, with the TypeScript
 * support this installation runs on, so an app needs no test dependency of its own.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Writable } from 'node:stream';

/** Test files: `*.test.ts`, `*.test.js`, `*.test.mjs`. */
const TEST_FILE = /\.test\.(?:ts|mts|js|mjs)$/;

/** The test files under `dir`, outside `node_modules` and dot-folders, sorted. */
export async function findTestFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && TEST_FILE.test(entry.name)) found.push(relative(dir, path));
    }
  };
  await walk(dir);
  return found.sort();
}

/**
 * Runs `node --test` on `args` (default: every test file of `cwd`), with this process's own Node
 * flags (type stripping on Node 22.12 to 22.17), and resolves to its exit code.
 */
export async function runTestCommand(args: readonly string[], cwd: string, err: Writable): Promise<number> {
  const files = args.length > 0 ? [...args] : await findTestFiles(cwd);
  if (files.length === 0) {
    err.write(`switchboard test: no test files (*.test.ts) in ${cwd}\n`);
    return 1;
  }
  const child = spawn(process.execPath, [...process.execArgv, '--test', ...files], { cwd, stdio: 'inherit' });
  const stop = (signal: NodeJS.Signals): void => { child.kill(signal); };
  process.on('SIGINT', stop).on('SIGTERM', stop);
  try {
    return await new Promise<number>((resolveExit, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => { resolveExit(code ?? (signal === null ? 1 : 128)); });
    });
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}
