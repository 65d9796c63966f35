import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { untilReady } from './child-ready.ts';

const SCRIPT = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

/** A worker child process. */
export interface WorkerChild {
  readonly pid: number;
  readonly process: ChildProcess;
  /** Where it serves HTTP (role `all`), from its `ready` line. */
  readonly url: string | undefined;
  /**
   * SIGTERM and wait for exit; with `killAfterMs`, SIGKILL if it has not exited by then (for a
   * clean-up that must end, not for a test of how the worker stops).
   */
  stop(options?: { readonly killAfterMs?: number }): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

/** Starts a worker process and waits until it says it is ready. */
export async function startWorker(config: Record<string, unknown>): Promise<WorkerChild> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let stdout = '';
  const collect = (chunk: Buffer): void => { stdout += chunk.toString(); };
  child.stdout.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  await untilReady(child, 'worker', () => stderr);
  child.stdout.off('data', collect);
  const pid = child.pid ?? -1;
  const url = /ready \d+ (\S+)/.exec(stdout)?.[1];
  return {
    pid,
    process: child,
    url,
    async stop(options = {}) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const late = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
      await exited;
      clearTimeout(late);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
