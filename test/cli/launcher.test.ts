/**
 * The launcher's Node check: below the floor one line says which Node is needed; 22.12 to 22.17
 * run again with type stripping turned on; newer Node runs the sources as they are. With the Node
 * 20 a Debian machine comes with, the launcher itself answers with that line and exit code 1.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE_FLOOR, nodeSupport } from '../../bin/node-floor.js';

const launcher = fileURLToPath(new URL('../../bin/switchboard.js', import.meta.url));

describe('the launcher\'s Node check', () => {
  it('refuses Node below the floor in one line naming the version needed', () => {
    const answer = nodeSupport('20.20.2', {});
    expect(answer.kind).toBe('too-old');
    expect(answer.kind === 'too-old' ? answer.message : '').toMatch(new RegExp(`needs Node\\.js ${NODE_FLOOR.replaceAll('.', '\\.')} or newer.*this is Node\\.js 20\\.20\\.2`));
    expect(nodeSupport('22.11.9', { typescript: false }).kind).toBe('too-old');
  });

  it('turns type stripping on where it is off, and runs as it is where it is on', () => {
    expect(nodeSupport('22.12.0', { typescript: false })).toEqual({ kind: 'needs-flag' });
    expect(nodeSupport('22.17.1', {})).toEqual({ kind: 'needs-flag' });
    expect(nodeSupport('22.18.0', { typescript: 'strip' })).toEqual({ kind: 'ok' });
    expect(nodeSupport('24.11.0', { typescript: 'strip' })).toEqual({ kind: 'ok' });
  });

  it('on this Node, `switchboard help` answers without a stack trace', async () => {
    const { stdout, stderr } = await run(process.execPath, [launcher, 'help']);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout + stderr).toMatch(/switchboard/);
  });

  it.runIf(existsSync('/usr/bin/node') && !process.execPath.startsWith('/usr/bin'))('with an older system Node, answers the one line and exit code 1', async () => {
    const { stdout: version } = await run('/usr/bin/node', ['--version']);
    const [major = 0, minor = 0] = version.trim().slice(1).split('.').map(Number);
    const old = major < 22 || (major === 22 && minor < 12);
    const { code, stderr } = await run('/usr/bin/node', [launcher, 'doctor']);
    if (old) {
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/needs Node\.js/);
    } else {
      expect(stderr).not.toMatch(/needs Node\.js/);
    }
  });
});

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 20_000, env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1' } }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}
