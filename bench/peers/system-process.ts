/**
 * The parent side of a system under test: a child process (`child_process.fork`) that serves HTTP
 * and says where (`child-side.ts`), whose CPU time can be read, and which can be stopped or killed
 * with SIGKILL. Each system runs alone in its child, so its CPU time is its own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { FromChild, ToChild } from './child-side.ts';

/** A running system under test. */
export interface SystemProcess {
  /** Where it serves HTTP. */
  readonly url: string;
  readonly pid: number;
  /** Its user and system CPU time so far, µs (`process.cpuUsage()` in the child). */
  cpuUs(): Promise<number>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
  /** Asks it to close, and waits for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** How long a child may take to say it is ready, ms. */
const START_TIMEOUT_MS = 30_000;

function send(child: ChildProcess, message: ToChild): void {
  child.send(message);
}

/** Forks `node <script> '<json config>'` and waits until it is ready. */
export async function startSystem(script: string, config: object): Promise<SystemProcess> {
  const child = fork(script, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const pending = new Map<number, (us: number) => void>();
  let asked = 0;
  child.on('message', (message: FromChild) => {
    if (message.type === 'cpu') pending.get(message.id)?.(message.us);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`${script} did not start in ${START_TIMEOUT_MS / 1000} s: ${stderr}`)); }, START_TIMEOUT_MS);
    child.on('message', (message: FromChild) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message.url);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${String(code ?? signal)}) before it was ready: ${stderr}`));
    });
  }).catch(async (error: unknown) => {
    if (running()) child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    url,
    pid: child.pid ?? -1,
    cpuUs() {
      asked += 1;
      const id = asked;
      return new Promise<number>((resolve, reject) => {
        if (!running()) {
          reject(new Error('the system is not running'));
          return;
        }
        pending.set(id, (us) => {
          pending.delete(id);
          resolve(us);
        });
        send(child, { type: 'cpu', id });
      });
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (running()) send(child, { type: 'stop' });
      const killer = setTimeout(() => { if (running()) child.kill('SIGKILL'); }, 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
