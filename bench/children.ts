/**
 * Child processes of the bench (switchboard workers, baseline hop workers): started with a JSON
 * config, ready when they print `ready <pid>`, stopped with SIGTERM. A child also stops when its
 * stdin closes, so none outlives a bench that crashed.
 */
import { spawn } from 'node:child_process';
import { untilReady } from '../test/support/child-ready.ts';

/** A running child process. */
export interface Child {
  readonly pid: number;
  /** SIGTERM, then waits for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Starts `node <script> '<json config>'` and waits until it prints `ready` (30 s at most). */
export async function startChild(script: string, config: object): Promise<Child> {
  const child = spawn(process.execPath, [script, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const stop = async (): Promise<void> => {
    if (running()) child.kill('SIGTERM');
    const killer = setTimeout(() => { if (running()) child.kill('SIGKILL'); }, 10_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    await untilReady(child, script, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid: child.pid ?? -1, stop };
}

/** Starts `count` children of `script` at once. */
export async function startChildren(script: string, config: object, count: number): Promise<Child[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startChild(script, config)));
  const children = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await stopChildren(children);
    throw failed.reason;
  }
  return children;
}

/** Stops every child, together. */
export async function stopChildren(children: readonly Child[]): Promise<void> {
  await Promise.all(children.map((child) => child.stop()));
}
