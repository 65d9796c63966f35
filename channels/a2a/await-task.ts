/**
 * Waiting for a peer task's round, for the buffered transports (MCP, the webhook reply): the task
 * is read once, then its event stream is tailed with a blocking read (`XREAD BLOCK`) from the
 * snapshot's last event on, so no event between the two is missed and nothing polls.
 */
import type { Task } from '@a2a-js/sdk';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { duplicateRedis } from '../../src/runtime/redis/redis-client.ts';
import { ROUND_OVER_STATES } from './peer-turns.ts';
import type { TaskLog } from './task-log.ts';

/** What {@link awaitRound} reads; all passed in. */
export interface AwaitRoundDeps {
  readonly log: TaskLog;
  /**
   * The service's command connection. Not used for the wait itself: a wait that blocks reads on
   * its own duplicate of it (`duplicateRedis`; a blocking read holds its connection), disconnected
   * when the wait ends. Never closed here.
   */
  readonly redis: Redis;
}

/** Whether `task` waits for nobody on our side: its state is one of `ROUND_OVER_STATES`. */
export function isRoundOver(task: Task): boolean {
  const state = task.status?.state;
  return state !== undefined && ROUND_OVER_STATES.has(state);
}

/** Events read per blocking read. */
const READ_COUNT = 100;

/**
 * Resolves with the task once its round is over (completed, failed, canceled, rejected or
 * input-required), or with the task as it is when `timeoutMs` has passed or `signal` aborts (the
 * caller went away). An `auth-required` task is not over: it goes on by itself once a person
 * decides. A task whose round is already over resolves at once, and a `timeoutMs` of 0 (or less)
 * answers the task as stored without waiting.
 *
 * @param timeoutMs - The longest wait, in milliseconds.
 * @throws SwitchboardError `http.not_found` when the task is not stored; rejects with Redis's own
 *   error when Redis cannot be read. Never rejects on a timeout.
 *
 * @example
 * const task = await awaitRound({ log, redis }, taskId, 30_000);
 * if (!isRoundOver(task)) answerStillWorking(task);
 */
export async function awaitRound(deps: AwaitRoundDeps, taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<Task> {
  const deadline = Date.now() + Math.max(0, timeoutMs);
  const aborted = (): boolean => signal?.aborted === true;
  const first = await deps.log.load(taskId);
  if (first === undefined) throw new SwitchboardError('http.not_found', `Task ${taskId} is not stored (or expired).`, { details: { taskId } });
  if (isRoundOver(first.task) || Date.now() >= deadline || aborted()) return first.task;
  let latest = first.task;
  // The service's connection fails fast while not connected; this one waits to connect (once).
  const connection = duplicateRedis(deps.redis, { enableOfflineQueue: true, lazyConnect: false });
  // A failed connection rejects the read below; the event itself needs a listener not to be logged as unhandled.
  connection.on('error', () => undefined);
  const stop = (): void => {
    connection.disconnect();
  };
  signal?.addEventListener('abort', stop, { once: true });
  try {
    let cursor = first.lastEventId ?? '0';
    for (let left = deadline - Date.now(); left > 0; left = deadline - Date.now()) {
      const entries = await deps.log.read(taskId, cursor, { blockMs: Math.max(1, Math.ceil(left)), count: READ_COUNT, redis: connection });
      const last = entries.at(-1);
      if (last === undefined) break;
      cursor = last.id;
      if (!entries.some((entry) => entry.event.kind === 'statusUpdate')) continue;
      const loaded = await deps.log.load(taskId);
      if (loaded === undefined) break;
      latest = loaded.task;
      if (isRoundOver(latest)) return latest;
    }
  } catch (error) {
    if (!aborted()) throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
    connection.disconnect();
  }
  return (await deps.log.load(taskId))?.task ?? latest;
}
