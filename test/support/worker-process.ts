/**
 * A switchboard worker process for tests that need several of them (ordering across processes,
 * a worker killed mid-turn). Run as `node test/support/worker-process.ts '<json config>'`; prints
 * `ready <pid>` once it takes work (`ready <pid> <url>` with role `all`, which also serves HTTP on
 * a free port), and closes cleanly on SIGTERM.
 */
import { pino } from 'pino';
import { loadEnv } from '../../src/config/env.ts';
import { startService } from '../../service/create-service.ts';

interface WorkerConfig {
  readonly redisUrl: string;
  readonly modelUrl: string;
  readonly appDir: string;
  readonly prefix: string;
  readonly lockTtlMs: number;
  readonly jobLockMs: number;
  readonly concurrency?: number;
  /** `all` also serves HTTP (web chat included), so turns of messages it takes in run inline. Default `worker`. */
  readonly role?: 'worker' | 'all';
}

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const env = loadEnv(
  { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: config.modelUrl, SWITCHBOARD_APP: config.appDir, REDIS_URL: config.redisUrl, LOG_LEVEL: 'silent' },
  { appDir: config.appDir },
);
const service = await startService({
  env,
  role: config.role ?? 'worker',
  port: 0,
  redisUrl: config.redisUrl,
  logger: pino({ level: 'silent' }),
  prefix: config.prefix,
  sessionLockTtlMs: config.lockTtlMs,
  jobLockDurationMs: config.jobLockMs,
  ...(config.concurrency === undefined ? {} : { turnConcurrency: config.concurrency }),
});
process.stdout.write(`ready ${process.pid}${service.url === undefined ? '' : ` ${service.url}`}\n`);
process.once('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
