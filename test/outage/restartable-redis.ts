/**
 * A private `redis-server` that a test stops, kills and starts again on the same port and data
 * folder, so the service under test sees one Redis go away and come back, as in production.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { useStarted } from '../support/use-started.ts';

/** A Redis that can go away and come back. */
export interface RestartableRedis {
  /** `redis://127.0.0.1:<port>`, the same across restarts. */
  readonly url: string;
  /** Whether the server is running now. */
  readonly running: boolean;
  /** SIGTERM: Redis writes its append-only file and exits. */
  stop(): Promise<void>;
  /** SIGKILL: Redis ends at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same data folder; resolves once it answers PING. */
  start(): Promise<void>;
}

/** Options of {@link useRestartableRedis}. */
export interface RestartableRedisOptions {
  /** `appendfsync` of the server. Default `everysec` (Redis' own). */
  readonly appendFsync?: 'everysec' | 'always';
}

/** Starts a restartable Redis for the test file (in a fresh temporary folder) and removes it after. */
export function useRestartableRedis(options: RestartableRedisOptions = {}): () => RestartableRedis {
  const appendFsync = options.appendFsync ?? 'everysec';
  return useStarted(
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-outage-redis-'));
      let current: EmbeddedRedis | undefined = await startEmbeddedRedis({ dataDir, appendFsync });
      const { port, url } = current;
      const ended = async (end: (server: EmbeddedRedis) => Promise<void>): Promise<void> => {
        const server = current;
        current = undefined;
        if (server !== undefined) await end(server);
      };
      const redis: RestartableRedis & { remove(): Promise<void> } = {
        url,
        get running() {
          return current !== undefined;
        },
        stop: () => ended((server) => server.stop()),
        kill: () => ended((server) => server.kill()),
        async start() {
          if (current !== undefined) throw new Error('The test Redis is already running.');
          current = await startEmbeddedRedis({ dataDir, port, appendFsync });
        },
        async remove() {
          await ended((server) => server.stop());
          await rm(dataDir, { recursive: true, force: true });
        },
      };
      return redis;
    },
    (redis) => redis.remove(),
    { name: 'useRestartableRedis()', startTimeoutMs: 30_000 },
  );
}
