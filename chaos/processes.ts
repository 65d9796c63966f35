/**
 * The switchboard processes of a chaos run: one web process on a fixed port and a set of worker
 * processes, each a real child (`service-child.ts`) that can be SIGKILLed and replaced.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { untilReady } from '../test/support/child-ready.ts';
import type { ServiceChildConfig } from './service-child.ts';

const SCRIPT = fileURLToPath(new URL('./service-child.ts', import.meta.url));

/** How long a child may take to print `ready`, in ms. Generous: Redis may be loading its file. */
const READY_TIMEOUT_MS = 60_000;

/** How long a SIGTERMed child may take to close before it is SIGKILLed, in ms. */
const STOP_TIMEOUT_MS = 10_000;

/** One running service child. */
interface ServiceChild {
  readonly name: string;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, SIGKILL after 10 s, and wait until it is gone. */
  stop(): Promise<void>;
}

/** Where every child's stderr goes (appended), and what all children share. */
export interface ProcessOptions extends Omit<ServiceChildConfig, 'role' | 'apiKey'> {
  /** Folder of the run: `<role>.log` files with the children's warnings and errors. */
  readonly runDir: string;
  /** The file the approval tool appends to (`CHAOS_TOOL_LOG`). */
  readonly toolLog: string;
}

/** Receives each `loop-stall <ms>` a child prints (see `service-child.ts`). */
type StallSink = (ms: number) => void;

/** Starts one child, named `name` (also its model API key), and waits until it serves. */
async function startChild(role: ServiceChildConfig['role'], name: string, options: ProcessOptions, onStall: StallSink = () => undefined): Promise<ServiceChild> {
  const { runDir, toolLog, ...shared } = options;
  const config: ServiceChildConfig = { ...shared, role, apiKey: name };
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, CHAOS_TOOL_LOG: toolLog },
  });
  const log = createWriteStream(join(runDir, `${role}.log`), { flags: 'a' });
  let tail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log.write(chunk);
    tail = (tail + chunk.toString()).slice(-4000);
  });
  child.stdout.on('data', (chunk: Buffer) => {
    for (const [, ms] of chunk.toString().matchAll(/loop-stall (\d+)/g)) onStall(Number(ms));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => { log.end(); resolve(); }));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const kill = async (): Promise<void> => {
    if (running()) child.kill('SIGKILL');
    await exited;
  };
  try {
    await untilReady(child, `${role} process`, () => tail, READY_TIMEOUT_MS);
  } catch (error) {
    await kill();
    throw error;
  }
  return {
    name,
    kill,
    async stop() {
      if (running()) child.kill('SIGTERM');
      const killer = setTimeout(() => { if (running()) child.kill('SIGKILL'); }, STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** The web process and the workers, with the faults that hit them. */
export interface ServiceProcesses {
  /** The web chat's base URL (the same across restarts). */
  readonly url: string;
  /**
   * SIGKILLs a worker (chosen by `pick` among the running ones) and starts a replacement; resolves
   * to the killed worker's name (`worker-<n>`, the API key its model calls carried).
   */
  killWorker(pick: (count: number) => number): Promise<string>;
  /** SIGKILLs the web process and starts a new one on the same port. */
  restartWeb(): Promise<void>;
  /** SIGTERMs every process and waits for them. */
  stop(): Promise<void>;
  /**
   * The longest any worker's event loop was held up so far while it served (took jobs), in ms,
   * killed workers included: to compare with how long a stall the session and job leases survive.
   */
  longestWorkerStallMs(): number;
}

/** Starts the web process and `workers` worker processes. */
export async function startServiceProcesses(options: ProcessOptions, workers: number): Promise<ServiceProcesses> {
  let web = await startChild('web', 'web', options);
  let serial = 0;
  let longestStallMs = 0;
  const onStall: StallSink = (ms) => {
    longestStallMs = Math.max(longestStallMs, ms);
  };
  const startWorker = (): Promise<ServiceChild> => startChild('worker', `worker-${String((serial += 1))}`, options, onStall);
  const running = await Promise.all(Array.from({ length: workers }, startWorker));
  return {
    url: `http://127.0.0.1:${options.port}`,
    async killWorker(pick) {
      const [victim] = running.splice(pick(running.length), 1);
      await victim?.kill();
      running.push(await startWorker());
      return victim?.name ?? 'none';
    },
    async restartWeb() {
      await web.kill();
      web = await startChild('web', 'web', options);
    },
    async stop() {
      await Promise.all([web.stop(), ...running.map((worker) => worker.stop())]);
    },
    longestWorkerStallMs: () => longestStallMs,
  };
}
