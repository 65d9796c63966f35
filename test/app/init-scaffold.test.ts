/**
 * `switchboard init <dir>` as a new user runs it: the scaffold is made in a temporary folder outside
 * this repository, its own `npm test` passes (its test uses `switchboard/testing`), and its
 * `npm start` runs the service on it, with the CLI reaching that service from the app's folder;
 * SIGTERM then leaves no process behind.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/runtime/redis/free-port.ts';
import { isAlive } from '../../src/runtime/redis/pid-file.ts';
import { waitFor } from '../support/wait-for.ts';

const launcher = fileURLToPath(new URL('../../bin/switchboard.js', import.meta.url));
const parent = mkdtempSync(join(tmpdir(), 'sb-init-'));
const appDir = join(parent, 'my-bot');
// The Node running this test first on PATH, so `npm` and the app's scripts run on it.
const PATH = `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`;
const baseEnv = { PATH, HOME: process.env['HOME'] ?? parent, LOG_LEVEL: 'info' };

afterAll(() => {
  rmSync(parent, { recursive: true, force: true });
});

interface Run {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Run {
  // Its own process group, so that SIGTERM reaches npm's children too.
  const child = spawn(command, args, { cwd, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { resolve(code); }));
  return { child, output: () => output, exited };
}

async function finished(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const started = run(command, args, cwd, env);
  const code = await started.exited;
  return { code, output: started.output() };
}


describe('switchboard init', () => {
  it('makes an app folder and prints the two commands to run it', async () => {
    const made = await finished(process.execPath, [launcher, 'init', 'my-bot'], parent);
    expect(made.code, made.output).toBe(0);
    expect(made.output).toContain('cd my-bot && npm test');
    expect(made.output).toMatch(/cd my-bot && .*npm start/);
    for (const file of ['switchboard.yaml', 'actors/assistant.yaml', 'tools/local_time.ts', 'tools/local_time.test.ts', 'package.json', '.gitignore']) {
      expect(existsSync(join(appDir, file)), file).toBe(true);
    }
    const pkg = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['switchboard']).toMatch(/^file:/);
  }, 30_000);

  it('refuses a folder that is not empty, and changes nothing in it', async () => {
    const before = readFileSync(join(appDir, 'switchboard.yaml'), 'utf8');
    const again = await finished(process.execPath, [launcher, 'init', 'my-bot'], parent);
    expect(again.code).toBe(2);
    expect(again.output).toMatch(/is not empty/);
    expect(readFileSync(join(appDir, 'switchboard.yaml'), 'utf8')).toBe(before);
  }, 30_000);

  it("runs the app's own tests with npm test, and fails them when the tool breaks", async () => {
    const tested = await finished('npm', ['test'], appDir);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toMatch(/ℹ pass [1-9]/);
    expect(tested.output).toMatch(/ℹ fail 0/);

    const tool = join(appDir, 'tools', 'local_time.ts');
    const source = readFileSync(tool, 'utf8');
    writeFileSync(tool, source.replace("hourCycle: 'h23'", "hourCycle: 'h12'"));
    try {
      const broken = await finished('npm', ['test'], appDir);
      expect(broken.code).not.toBe(0);
      expect(broken.output).toMatch(/ℹ fail [1-9]/);
    } finally {
      writeFileSync(tool, source);
    }
  }, 60_000);

  it('starts the service on the app with npm start; the CLI reaches it; SIGTERM leaves nothing behind', async () => {
    const port = await findFreePort();
    const service = run('npm', ['start'], appDir, { PORT: String(port) });
    // The log line comes through pino's own buffered stream, so it may follow the console line.
    const started = /"app":"my-assistant","actors":\["assistant"\]/;
    await waitFor(() => (service.output().includes('switchboard is running') && started.test(service.output())) || service.child.exitCode !== null, 'the service runs', 40_000);
    expect(service.output()).toContain('switchboard is running');
    expect(service.output()).toMatch(started);
    const ready = await fetch(`http://127.0.0.1:${String(port)}/readyz`);
    expect(ready.status).toBe(200);

    const listed = await finished('npm', ['run', 'approvals', '--', 'list'], appDir);
    expect(listed.code, listed.output).toBe(0);
    expect(listed.output).toContain('No approvals.');

    const address = join(appDir, '.data', 'redis', 'redis-address.json');
    const redisPid = (JSON.parse(readFileSync(address, 'utf8')) as { pid: number }).pid;
    const group = service.child.pid;
    if (group === undefined) throw new Error('npm start has no pid');
    process.kill(-group, 'SIGTERM');
    await service.exited;
    await waitFor(() => !isAlive(redisPid), 'the private redis-server is gone', 15_000);
    expect(existsSync(address)).toBe(false);
  }, 90_000);
});
