#!/usr/bin/env node
// The switchboard command line. It checks the Node version first (one line, no stack trace, below
// the floor), then runs the TypeScript sources directly on Node's type stripping.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeSupport } from './node-floor.js';

const support = nodeSupport(process.versions.node, process.features);
if (support.kind === 'too-old') {
  process.stderr.write(`${support.message}\n`);
  process.exit(1);
}
if (support.kind === 'needs-flag') {
  // Node 22.12 to 22.17: the same command again, with type stripping turned on.
  const args = ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal !== null) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  const { main } = await import('../service/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2), process.env);
}
