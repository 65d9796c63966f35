import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

/** A worker child process. */
export interface WorkerChild {
  readonly pid: number;
  readonly process: ChildProcess;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
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
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`worker did not start in 30 s: ${stderr}`)); }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${String(code)}: ${stderr}`));
    });
  });
  const pid = child.pid ?? -1;
  return {
    pid,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
