/**
 * Adding a job at most once per job id, and knowing whether this call was the one that added it.
 *
 * BullMQ's `add` with a custom job id that already exists adds nothing and returns a job object
 * built from the caller's own arguments, so its answer cannot tell a fresh add from a duplicate.
 * Each add therefore carries a random `enqueueId` in the job data; after the add, the stored job is
 * read back: if it holds our `enqueueId`, this call created it, otherwise an earlier call did.
 * The job data never changes after the add, so the answer is exact even when several callers race
 * with the same id: exactly one of them sees its own `enqueueId`.
 */
import { randomUUID } from 'node:crypto';
import type { JobsOptions, Queue } from 'bullmq';

/** The data of a job added by {@link addOnce}. */
export interface OnceEnvelope<T> {
  /** What the job carries. */
  readonly item: T;
  /** Random id of the `add` call that created the job. */
  readonly enqueueId: string;
}

/** What {@link addOnce} did. */
export interface AddOnceResult {
  /** The job id (the same for the first add and every duplicate). */
  readonly jobId: string;
  /** `true` when a job with this id already existed, so this call added nothing. */
  readonly duplicate: boolean;
}

/** Job options for {@link addOnce}: any BullMQ job options with a required `jobId`. */
export type AddOnceJobOptions = JobsOptions & { readonly jobId: string };

/**
 * Adds `item` as job `options.jobId` unless that id exists, and reports which happened.
 * If the job is gone by the time it is read back (it finished and was removed in between), the
 * add is reported as not a duplicate.
 */
export async function addOnce<T>(
  queue: Queue<OnceEnvelope<T>>,
  name: string,
  item: T,
  options: AddOnceJobOptions,
): Promise<AddOnceResult> {
  const enqueueId = randomUUID();
  const added = await queue.add(name, { item, enqueueId }, options);
  const jobId = added.id ?? options.jobId;
  const stored = await queue.getJob(jobId);
  const duplicate = stored !== undefined && stored.data.enqueueId !== enqueueId;
  return { jobId, duplicate };
}
