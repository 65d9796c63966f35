/** Starts and watches {@link LeaseChildConfig} processes (`lease-child.ts`) for the lease process test. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LeaseChildConfig } from './lease-child.ts';

const SCRIPT = fileURLToPath(new URL('./lease-child.ts', import.meta.url));

/** A line printed by the child, with the parent's `performance.now()` when it arrived. */
export interface ChildLine {
  readonly text: string;
  readonly at: number;
}

/** A running lease child. */
export interface LeaseChild {
  readonly name: string;
  readonly lines: readonly ChildLine[];
  /** The first line (from `after` on, by index) matching `pattern`; rejects after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs: number, after?: number): Promise<{ line: ChildLine; match: RegExpMatchArray }>;
  /** Sends `signal` (e.g. `SIGSTOP`, `SIGCONT`) without waiting. */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
  /** SIGCONT then SIGTERM, and wait for exit; SIGKILL after 5 s. No-op once exited. */
  stop(): Promise<void>;
}

/** Starts a lease child and waits until it prints `ready`. */
export async function startLeaseChild(config: LeaseChildConfig): Promise<LeaseChild> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: ChildLine[] = [];
  const watchers = new Set<() => void>();
  let stderr = '';
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  child.stdout.on('data', (chunk: Buffer) => {
    const at = performance.now();
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) lines.push({ text, at });
    for (const watcher of watchers) watcher();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;

  const waitForLine: LeaseChild['waitForLine'] = (pattern, timeoutMs, after = 0) =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        for (const line of lines.slice(after)) {
          const match = pattern.exec(line.text);
          if (match !== null) {
            finish(() => { resolve({ line, match }); });
            return;
          }
        }
        if (!running()) finish(() => { reject(new Error(`${config.name} exited before printing ${pattern}: ${stderr}`)); });
      };
      const timer = setTimeout(() => {
        finish(() => { reject(new Error(`${config.name} printed no ${pattern} in ${timeoutMs} ms: ${JSON.stringify(lines)} ${stderr}`)); });
      }, timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        watchers.delete(check);
        settle();
      };
      watchers.add(check);
      void exited.then(check);
      check();
    });

  await waitForLine(/^ready$/, 30_000);
  return {
    name: config.name,
    lines,
    waitForLine,
    signal(signal) {
      child.kill(signal);
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!running()) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
