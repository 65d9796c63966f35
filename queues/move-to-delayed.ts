/**
 * Moving a job that waits (a busy session, a send limit) to BullMQ's delayed set, on a client
 * that resends a command whose answer a broken connection lost. The resent move finds the job's
 * lock already gone and BullMQ rejects it ("Missing lock"), though the first one did the move.
 */
import type { Job } from 'bullmq';

/**
 * Moves `job` to the delayed set until `timestamp` (epoch ms) under its lock `token`. A rejected
 * move of a job that is delayed all the same (the move was done by the first send of a resent
 * command) counts as done; any other rejection is thrown.
 */
export async function moveToDelayed(job: Pick<Job, 'moveToDelayed' | 'getState'>, timestamp: number, token: string): Promise<void> {
  try {
    await job.moveToDelayed(timestamp, token);
  } catch (error) {
    const state = await job.getState().catch(() => undefined);
    if (state !== 'delayed') throw error;
  }
}
