/**
 * The chaos run's Redis: a private `redis-server` on a fixed loopback port with the append-only
 * file on and the chosen `appendfsync`, which the run stops (SIGTERM) or kills (SIGKILL) and starts
 * again on the same port and data folder, so every client reconnects to the same data.
 *
 * Not `startEmbeddedRedis`: that one has no `appendfsync` option (Redis's default `everysec`
 * applies), and its `stop()` cannot be told to SIGKILL at once.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pingRedis } from '../src/runtime/redis/ping-redis.ts';
import type { FsyncPolicy } from './plan.ts';

/** How long a (re)start may take before the run gives up, in ms. */
const START_TIMEOUT_MS = 30_000;

/** A Redis the run can stop, kill and start again. */
export interface ChaosRedis {
  readonly url: string;
  /** SIGTERM (Redis flushes its append-only file), wait for the exit, start again. */
  restartGracefully(): Promise<void>;
  /** SIGKILL (no flush), wait for the exit, start again. */
  restartAfterKill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

/** Options of {@link startChaosRedis}. */
export interface ChaosRedisOptions {
  readonly port: number;
  readonly dataDir: string;
  readonly fsync: FsyncPolicy;
}

interface Running {
  readonly exited: Promise<void>;
  signal(name: NodeJS.Signals): void;
}

/** Starts the server and waits until it answers `PING` (its data loaded). */
async function launch(options: ChaosRedisOptions): Promise<Running> {
  const { port, dataDir, fsync } = options;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--daemonize', 'no', '--appendonly', 'yes', '--appendfsync', fsync, '--maxmemory-policy', 'noeviction', '--save', ''];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(join(dataDir, '..', 'redis.log'), { flags: 'a' });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const killOnExit = (): void => { child.kill('SIGKILL'); };
  process.on('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await pingRedis(port))) {
    if (gone() || Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`redis-server did not start on port ${port}; see ${join(dataDir, '..', 'redis.log')}`);
    }
    await sleep(50);
  }
  return { exited, signal: (name) => { if (!gone()) child.kill(name); } };
}

/** Starts the run's Redis. */
export async function startChaosRedis(options: ChaosRedisOptions): Promise<ChaosRedis> {
  let current = await launch(options);
  const restart = async (signal: NodeJS.Signals): Promise<void> => {
    current.signal(signal);
    await current.exited;
    current = await launch(options);
  };
  return {
    url: `redis://127.0.0.1:${options.port}`,
    restartGracefully: () => restart('SIGTERM'),
    restartAfterKill: () => restart('SIGKILL'),
    async stop() {
      current.signal('SIGTERM');
      const killer = setTimeout(() => { current.signal('SIGKILL'); }, 10_000);
      await current.exited;
      clearTimeout(killer);
    },
  };
}
