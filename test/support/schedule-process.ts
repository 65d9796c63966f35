/**
 * A process that runs the scheduler of one schedule, for tests that need several of them on one
 * Redis. Run as `node test/support/schedule-process.ts '<json config>'`: it syncs the schedule,
 * starts the worker, records each tick as `RPUSH <listKey> <name>:<firedAt ms>`, prints `ready`,
 * and closes cleanly on SIGTERM. Tests start it with {@link startScheduleProcess}.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createScheduler } from '../../queues/schedule-queue.ts';

/** What a schedule process is given. */
export interface ScheduleProcessConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  /** Names the process in the records it pushes. */
  readonly name: string;
  /** The Redis list the ticks are pushed to. */
  readonly listKey: string;
  readonly scheduleId: string;
  readonly cron: string;
}

/** A running schedule process. */
export interface ScheduleProcess {
  /** SIGTERM, then wait for the exit; rejects when it exits with an error. */
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(import.meta.url);

/** Starts a schedule process and waits (at most 20 s) until it says it is ready. */
export async function startScheduleProcess(config: ScheduleProcessConfig): Promise<ScheduleProcess> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`schedule process ${config.name} did not start in 20 s: ${stderr}`));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`schedule process ${config.name} exited with ${String(code)}: ${stderr}`));
    });
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`schedule process ${config.name} exited with ${String(code)}: ${stderr}`);
    },
  };
}

async function main(config: ScheduleProcessConfig): Promise<void> {
  const { hostname, port } = new URL(config.redisUrl);
  const recorder = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const scheduler = createScheduler({
    connection: { host: hostname, port: Number(port) },
    prefix: config.prefix,
    schedules: [{ id: config.scheduleId, cron: config.cron }],
    onTick: async (_schedule, firedAt) => {
      await recorder.rpush(config.listKey, `${config.name}:${firedAt.getTime()}`);
    },
    onError: (error) => {
      process.stderr.write(`${config.name}: ${error.message}\n`);
    },
  });
  await scheduler.sync();
  scheduler.startWorker();
  process.once('SIGTERM', () => {
    void scheduler
      .close()
      .then(() => recorder.quit())
      .then(() => process.exit(0));
  });
  process.stdout.write(`ready ${config.name}\n`);
}

if (import.meta.main) await main(JSON.parse(process.argv[2] ?? '{}') as ScheduleProcessConfig);
