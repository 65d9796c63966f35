/**
 * `switchboard start` stopped by SIGTERM at any point leaves no process behind: here, while it is
 * still starting (its private Redis is up, the service is not yet), and once it runs. The command
 * runs as a real process (a small script calling the CLI's `main` with a private data folder).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/runtime/redis/free-port.ts';
import { isAlive } from '../../src/runtime/redis/pid-file.ts';
import { waitFor } from '../support/wait-for.ts';

const mainModule = fileURLToPath(new URL('../../service/cli/main.ts', import.meta.url));


async function startCommand(): Promise<{ child: ChildProcessByStdio<null, Readable, Readable>; dataDir: string; output: () => string; exited: Promise<number | null> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-start-'));
  const dataDir = join(dir, 'redis');
  const script = join(dir, 'start.mjs');
  writeFileSync(script, `import { main } from ${JSON.stringify(mainModule)};\nprocess.exitCode = await main(['start'], process.env, { redisDataDir: ${JSON.stringify(dataDir)} });\n`);
  const port = await findFreePort();
  const child = spawn(process.execPath, [script], { env: { PATH: process.env['PATH'] ?? '', PORT: String(port), LOG_LEVEL: 'silent', ANTHROPIC_API_KEY: 'test-key' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { resolve(code); }));
  return { child, dataDir, output: () => output, exited };
}

function redisPid(dataDir: string): number {
  return (JSON.parse(readFileSync(join(dataDir, 'redis-address.json'), 'utf8')) as { pid: number }).pid;
}

describe('switchboard start and SIGTERM', () => {
  it('while still starting: the step under way finishes, then everything stops, the private Redis too', async () => {
    const run = await startCommand();
    await waitFor(() => existsSync(join(run.dataDir, 'redis-address.json')), 'the private Redis is up', 20_000);
    const pid = redisPid(run.dataDir);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    await waitFor(() => !isAlive(pid), 'the private redis-server is gone', 10_000);
    expect(existsSync(join(run.dataDir, 'redis-address.json'))).toBe(false);
  }, 40_000);

  it('once running: it stops, the private Redis too', async () => {
    const run = await startCommand();
    await waitFor(() => run.output().includes('switchboard is running'), 'the service runs', 30_000);
    const pid = redisPid(run.dataDir);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    await waitFor(() => !isAlive(pid), 'the private redis-server is gone', 10_000);
  }, 40_000);
});
