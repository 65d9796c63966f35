/**
 * The chaos run's Redis: the private `redis-server` of {@link startEmbeddedRedis} (append-only file
 * on, the chosen `appendfsync`), which the run stops (SIGTERM) or kills (SIGKILL) and starts again
 * on the same port and data folder, so every client reconnects to the same data. The server's
 * output goes to `redis.log` beside the data folder.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { startEmbeddedRedis, type EmbeddedRedis, type EmbeddedRedisOptions } from '../src/runtime/redis/embedded-redis.ts';
import type { FsyncPolicy } from './plan.ts';

/** How long a (re)start may take before the run gives up, in ms. Generous: Redis may be loading its file. */
const START_TIMEOUT_MS = 30_000;

/** A Redis the run can stop, kill and start again. */
export interface ChaosRedis {
  readonly url: string;
  /** SIGTERM (Redis flushes its append-only file), wait for the exit, start again. */
  restartGracefully(): Promise<void>;
  /** SIGKILL (no flush), wait for the exit, start again. */
  restartAfterKill(): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s) and wait. */
  stop(): Promise<void>;
}

/** Options of {@link startChaosRedis}. */
export interface ChaosRedisOptions {
  readonly port: number;
  readonly dataDir: string;
  readonly fsync: FsyncPolicy;
}

/** Starts the run's Redis and waits until it answers `PING`. */
export async function startChaosRedis(options: ChaosRedisOptions): Promise<ChaosRedis> {
  const logger = pino({ level: 'debug' }, pino.destination({ dest: join(options.dataDir, '..', 'redis.log'), sync: true }));
  const start: EmbeddedRedisOptions = { dataDir: options.dataDir, port: options.port, appendFsync: options.fsync, startTimeoutMs: START_TIMEOUT_MS, logger };
  let current: EmbeddedRedis = await startEmbeddedRedis(start);
  const restart = async (end: (server: EmbeddedRedis) => Promise<void>): Promise<void> => {
    await end(current);
    current = await startEmbeddedRedis(start);
  };
  return {
    url: current.url,
    restartGracefully: () => restart((server) => server.stop()),
    restartAfterKill: () => restart((server) => server.kill()),
    stop: () => current.stop(),
  };
}
