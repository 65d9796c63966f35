/**
 * One switchboard process of the chaos run (web or worker), started by `processes.ts` as
 * `node chaos/service-child.ts '<json ServiceChildConfig>'`. Prints `ready <pid>` once it serves,
 * logs JSON lines (warnings and errors) on stderr, closes on SIGTERM and exits when its stdin
 * ends, so none outlives a runner that died. A worker also prints `loop-stall <ms>`, the longest
 * its event loop was held up since it started serving, each time that grows by 50 ms or more.
 */
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadEnv } from '../src/config/env.ts';
import { startService } from '../service/create-service.ts';
import { serveUntilStopped } from '../test/support/child-ready.ts';

/** What a service child is told; `processes.ts` writes it. */
export interface ServiceChildConfig {
  readonly role: 'web' | 'worker';
  readonly redisUrl: string;
  readonly prefix: string;
  /** HTTP port of a web process (the same after each restart). */
  readonly port: number;
  /** The fake model's base URL. */
  readonly modelUrl: string;
  /** The API key this process sends: the fake model tells the processes' calls apart by it. */
  readonly apiKey: string;
  /** Signs the web chat cookies: the same for every web process, so browsers outlive a restart. */
  readonly sessionSecret: string;
  /** Session lock TTL and BullMQ job lock, in ms. Default: the service's. */
  readonly lockTtlMs?: number;
}

const appDir = fileURLToPath(new URL('./app/', import.meta.url));
const config = JSON.parse(process.argv[2] ?? '{}') as ServiceChildConfig;
const env = loadEnv(
  {
    ANTHROPIC_API_KEY: config.apiKey,
    ANTHROPIC_BASE_URL: config.modelUrl,
    SWITCHBOARD_APP: appDir,
    REDIS_URL: config.redisUrl,
    SESSION_SECRET: config.sessionSecret,
    LOG_LEVEL: 'warn',
  },
  { appDir },
);
/** Prints the longest event-loop delay so far (`loop-stall <ms>`) each time it grows by 50 ms or more. */
function reportLoopStalls(): void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let reported = 0;
  const timer = setInterval(() => {
    const longestMs = Math.round(delay.max / 1e6);
    if (longestMs < reported + 50) return;
    reported = longestMs;
    process.stdout.write(`loop-stall ${String(longestMs)}\n`);
  }, 250);
  timer.unref();
}

const service = await startService({
  env,
  role: config.role,
  redisUrl: config.redisUrl,
  logger: pino({ level: 'warn' }, pino.destination(2)),
  prefix: config.prefix,
  port: config.port,
  ...(config.lockTtlMs === undefined ? {} : { sessionLockTtlMs: config.lockTtlMs, jobLockDurationMs: config.lockTtlMs }),
});

// From here on the worker takes jobs (its start-up takes none, so a stall there holds no lease up).
if (config.role === 'worker') reportLoopStalls();
serveUntilStopped(() => service.close());
