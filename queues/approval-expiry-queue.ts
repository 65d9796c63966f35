/**
 * Approval expiry: one BullMQ delayed job per approval (`apr-exp-<approvalId>`), due at the
 * approval's `expiresAt`. The worker calls `onExpire(approvalId)`, which is expected to run the
 * store's compare-and-set to `expired` and, when it wins, resume the turn with "rejected: timeout".
 * A decision cancels the job; a job that runs anyway (the cancel raced the worker) finds the
 * approval decided and does nothing, so `onExpire` must tolerate that.
 *
 * Queue keys are `<prefix>:approval-expiry:…`.
 */
import { Worker, type Job } from 'bullmq';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { sha256Hex } from './job-ids.ts';
import { closeWorker } from './close-worker.ts';
import { checkPrefix, openRedis, type OpenedRedis, type RedisConnectionInput } from './redis-connections.ts';
import { openProducerQueue } from './producer-queue.ts';

/** Name of the approval expiry BullMQ queue. */
export const APPROVAL_EXPIRY_QUEUE_NAME = 'approval-expiry';

const JOB_NAME = 'expire';

interface ExpiryJobData {
  readonly approvalId: string;
}

/**
 * Job id of an approval's expiry: `apr-exp-<approvalId>` when the id is base64url (as approval ids
 * are: no `:` and, with the prefix, never all digits), else `apr-exp-` + sha256(approvalId).
 */
export function approvalExpiryJobId(approvalId: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(approvalId) ? `apr-exp-${approvalId}` : `apr-exp-${sha256Hex(approvalId)}`;
}

/** Options of {@link createApprovalExpiry}. */
export interface ApprovalExpiryOptions {
  /**
   * Redis for the queue and the worker. A client passed in is used as is and not closed; it must
   * have `maxRetriesPerRequest: null` if `startWorker` is called. Options open a fail-fast producer
   * client and, on `startWorker`, a worker client; `close()` closes both.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queue. Default `sb`. */
  readonly prefix?: string;
  /**
   * Expires one approval. A rejection retries the job (`attempts`, exponential backoff from
   * `backoffDelayMs`). Must tolerate an approval that is already decided.
   */
  readonly onExpire: (approvalId: string) => Promise<void>;
  /** Tries per expiry job, the first included. Default 5. */
  readonly attempts?: number;
  /** Delay before the first retry, in milliseconds; doubles on each further retry. Default 1000. */
  readonly backoffDelayMs?: number;
  /** Expiries run at the same time by the worker. Default 8. */
  readonly concurrency?: number;
  /** Receives errors of the worker and its connection. Default: ignored. */
  readonly onError?: (error: Error) => void;
}

/** Schedules, cancels and runs approval expiries. */
export interface ApprovalExpiry {
  /**
   * Schedules the expiry of `approvalId` at `at` (a time in the past runs it at once). Scheduling
   * the same approval again while its job waits adds nothing. Rejects with `queue.closed` after
   * `close()`.
   */
  schedule(approvalId: string, at: Date): Promise<void>;
  /** Removes the waiting expiry job of `approvalId`; does nothing when there is none or it is running. */
  cancel(approvalId: string): Promise<void>;
  /** Starts the worker that calls `onExpire` for due jobs (once; later calls do nothing). */
  startWorker(): void;
  /** Stops the worker (waiting for running expiries), closes the queue and any client opened here. */
  close(): Promise<void>;
}

/**
 * Creates the approval expiry queue; call `startWorker()` in processes that should run expiries.
 *
 * @example
 * const expiry = createApprovalExpiry({ connection: redis, onExpire: async (id) => { await expireAndResume(id); } });
 * expiry.startWorker();
 * await expiry.schedule(record.approvalId, new Date(record.expiresAt));
 */
export function createApprovalExpiry(options: ApprovalExpiryOptions): ApprovalExpiry {
  const prefix = checkPrefix(options.prefix);
  const producer = openRedis(options.connection, 'producer');
  const queue = openProducerQueue<ExpiryJobData>(APPROVAL_EXPIRY_QUEUE_NAME, { connection: producer.client, prefix });
  const onError = options.onError ?? (() => undefined);
  const jobOptions = {
    attempts: options.attempts ?? 5,
    backoff: { type: 'exponential', delay: options.backoffDelayMs ?? 1000 },
    // Removed once done so the id is free; failed jobs are kept for inspection.
    removeOnComplete: true,
    removeOnFail: { count: 1000 },
  } as const;
  let worker: Worker<ExpiryJobData> | undefined;
  let workerRedis: OpenedRedis | undefined;
  let closing: Promise<void> | undefined;

  return {
    async schedule(approvalId, at) {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The approval expiry queue is closed');
      const delay = Math.max(0, at.getTime() - Date.now());
      await queue.add(JOB_NAME, { approvalId }, { ...jobOptions, delay, jobId: approvalExpiryJobId(approvalId) });
    },
    async cancel(approvalId) {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The approval expiry queue is closed');
      // Returns 0 when the job is missing or locked by a running worker; both are fine.
      await queue.remove(approvalExpiryJobId(approvalId));
    },
    startWorker() {
      if (closing !== undefined) throw new SwitchboardError('queue.closed', 'The approval expiry queue is closed');
      if (worker !== undefined) return;
      workerRedis = openRedis(options.connection, 'worker');
      worker = new Worker<ExpiryJobData>(
        APPROVAL_EXPIRY_QUEUE_NAME,
        async (job: Job<ExpiryJobData>) => {
          await options.onExpire(job.data.approvalId);
        },
        { connection: workerRedis.client, prefix, concurrency: options.concurrency ?? 8 },
      );
      worker.on('error', onError);
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
