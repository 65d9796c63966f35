/**
 * The schedule queue: one BullMQ job scheduler per configured schedule (cron pattern and time zone),
 * on the queue `<prefix>:schedules:…`. BullMQ names each tick's job `repeat:<schedule id>:<tick ms>`
 * and creates the next tick's job atomically, in Redis, when a worker takes the current one, so
 * however many processes sync the same schedules and run workers, each tick is one job, taken by
 * one worker. `onTick` may still run twice for one tick (a retry after a failure or a crash), so it
 * must be idempotent: the service enqueues an injection whose id derives from the tick.
 */
import { createHash } from 'node:crypto';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { closeWorker } from './close-worker.ts';
import { checkPrefix, openRedis, type OpenedRedis, type RedisConnectionInput } from './redis-connections.ts';
import { openProducerQueue } from './producer-queue.ts';

/** Name of the schedule BullMQ queue (its keys are `<prefix>:schedules:…`). */
export const SCHEDULE_QUEUE_NAME = 'schedules';

const JOB_NAME = 'tick';
const DAY_S = 24 * 60 * 60;

/** What the scheduler needs of a schedule; `ScheduleConfig` of a loaded app fits. */
export interface CronSchedule {
  /** Stable id, unique among the schedules; names the job scheduler. */
  readonly id: string;
  /** A cron pattern of 5 fields, or 6 with seconds first (checked when the app loads). */
  readonly cron: string;
  /** IANA time zone the pattern is read in. Default `UTC`. */
  readonly timezone?: string;
  /** `false` removes the schedule's job scheduler. Default `true`. */
  readonly enabled?: boolean;
}

interface TickJobData {
  readonly scheduleId: string;
  /** Hash of what the scheduler was created from; a different one means the config changed. */
  readonly fingerprint: string;
}

/** Options of {@link createScheduler}. */
export interface SchedulerOptions<S extends CronSchedule> {
  /**
   * Redis. A client passed in is used as is and not closed; it must have
   * `maxRetriesPerRequest: null` if `startWorker` is called. Options open a fail-fast producer
   * client and, on `startWorker`, a worker client; `close()` closes both.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queue. Default `sb`. */
  readonly prefix?: string;
  /** Every schedule of the app; all processes should be given the same list. */
  readonly schedules: readonly S[];
  /**
   * Runs one tick of `schedule`, due at `firedAt` (the tick's time, the same on a retry). A
   * rejection retries the tick with backoff until its attempts run out; a
   * `SwitchboardError('schedule.invalid')` fails it at once (retrying cannot help).
   */
  readonly onTick: (schedule: S, firedAt: Date) => Promise<void>;
  /**
   * Receives errors of the worker and its connections, failed ticks, and ticks of schedules this
   * process does not know (another process runs a different config). Default: ignored.
   */
  readonly onError?: (error: Error) => void;
  /**
   * Called instead of `onTick` for a tick taken more than {@link maxLatenessMs} after it was due
   * (every worker was down at the time). Default: ignored.
   */
  readonly onSkip?: (schedule: S, firedAt: Date, lateByMs: number) => void;
  /** A tick later than this, in milliseconds, is skipped. Default 3600000 (1 hour). */
  readonly maxLatenessMs?: number;
  /** Tries per tick, the first included. Default 3. */
  readonly attempts?: number;
  /** Delay before the first retry, in milliseconds; doubles on each further retry. Default 1000. */
  readonly backoffDelayMs?: number;
  /** Ticks run at the same time by this worker. Default 4. */
  readonly concurrency?: number;
  /** Clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/** The job schedulers of the app's schedules, and the worker that runs their ticks. */
export interface Scheduler {
  /**
   * Makes Redis hold one job scheduler per enabled schedule and no other: creates missing ones,
   * updates changed ones (pattern, time zone, job options), leaves unchanged ones alone, and
   * removes those no longer configured or disabled. Safe to call from every process at start.
   * Rejects with `queue.closed` after `close()`.
   */
  sync(): Promise<void>;
  /** Starts the worker that runs due ticks (once; later calls do nothing). */
  startWorker(): void;
  /** Stops the worker (waiting for running ticks), closes the queue and any client opened here. */
  close(): Promise<void>;
}

/** The tick time of a job scheduler's job: BullMQ's `prevMillis`, else the `:<ms>` end of its id. */
function firedAtOf(job: Job<TickJobData>): Date {
  const { prevMillis } = job.opts as { prevMillis?: unknown };
  if (typeof prevMillis === 'number') return new Date(prevMillis);
  const fromId = Number((job.id ?? '').split(':').pop());
  return new Date(Number.isFinite(fromId) && fromId > 0 ? fromId : job.timestamp);
}

/**
 * Creates the schedule queue. Call `sync()` at start in every process that has the config, and
 * `startWorker()` in processes that should run ticks.
 *
 * @example
 * const scheduler = createScheduler({ connection: redis, schedules: app.schedules, onTick: tick, onError: log });
 * await scheduler.sync();
 * scheduler.startWorker();
 */
export function createScheduler<S extends CronSchedule>(options: SchedulerOptions<S>): Scheduler {
  const prefix = checkPrefix(options.prefix);
  const producer = openRedis(options.connection, 'producer');
  const queue = openProducerQueue<TickJobData>(SCHEDULE_QUEUE_NAME, { connection: producer.client, prefix });
  const onError = options.onError ?? (() => undefined);
  const now = options.now ?? Date.now;
  const maxLatenessMs = options.maxLatenessMs ?? 60 * 60 * 1000;
  const byId = new Map(options.schedules.map((schedule) => [schedule.id, schedule]));
  const templateOpts = {
    attempts: options.attempts ?? 3,
    backoff: { type: 'exponential', delay: options.backoffDelayMs ?? 1000 },
    removeOnComplete: { age: DAY_S, count: 1000 },
    removeOnFail: { count: 1000 },
  };
  let worker: Worker<TickJobData> | undefined;
  let workerRedis: OpenedRedis | undefined;
  let closing: Promise<void> | undefined;

  const assertOpen = (): void => {
    if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The schedule queue is closed');
  };

  const runTick = async (job: Job<TickJobData>): Promise<void> => {
    const schedule = byId.get(job.data.scheduleId);
    if (schedule === undefined || schedule.enabled === false) {
      const message = `Tick of schedule "${job.data.scheduleId}" skipped: this process has it disabled or not configured`;
      onError(new SwitchboardError('schedule.invalid', message, { details: { scheduleId: job.data.scheduleId } }));
      return;
    }
    const firedAt = firedAtOf(job);
    const lateByMs = now() - firedAt.getTime();
    if (lateByMs > maxLatenessMs) {
      options.onSkip?.(schedule, firedAt, lateByMs);
      return;
    }
    try {
      await options.onTick(schedule, firedAt);
    } catch (error) {
      if (error instanceof SwitchboardError && error.code === 'schedule.invalid') throw new UnrecoverableError(error.message);
      throw error;
    }
  };

  return {
    async sync() {
      assertOpen();
      const wanted = options.schedules.filter((schedule) => schedule.enabled !== false);
      const existing = new Map((await queue.getJobSchedulers(0, -1)).map((scheduler) => [scheduler.key, scheduler]));
      for (const schedule of wanted) {
        const tz = schedule.timezone ?? 'UTC';
        const fingerprint = createHash('sha256').update(JSON.stringify([schedule.cron, tz, templateOpts])).digest('hex');
        const current = existing.get(schedule.id);
        const currentData = current?.template?.data as Partial<TickJobData> | undefined;
        if (current?.next !== undefined && currentData?.fingerprint === fingerprint) continue;
        await queue.upsertJobScheduler(
          schedule.id,
          { pattern: schedule.cron, tz },
          { name: JOB_NAME, data: { scheduleId: schedule.id, fingerprint }, opts: templateOpts },
        );
      }
      const keep = new Set(wanted.map((schedule) => schedule.id));
      for (const key of existing.keys()) if (!keep.has(key)) await queue.removeJobScheduler(key);
    },
    startWorker() {
      assertOpen();
      if (worker !== undefined) return;
      workerRedis = openRedis(options.connection, 'worker');
      worker = new Worker<TickJobData>(SCHEDULE_QUEUE_NAME, runTick, {
        connection: workerRedis.client,
        prefix,
        concurrency: options.concurrency ?? 4,
      });
      worker.on('error', onError);
      worker.on('failed', (_job, error) => {
        onError(error);
      });
    },
    close() {
      closing ??= (async () => {
        try {
          await closeWorker(worker, workerRedis?.client);
          await queue.close();
        } finally {
          await workerRedis?.close();
          await producer.close();
        }
      })();
      return closing;
    },
  };
}
