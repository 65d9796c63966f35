/**
 * The SDK's `TaskStore` over the {@link TaskLog}: what `DefaultRequestHandler` reads and writes,
 * scoped to the calling peer.
 *
 * Owner: the peer id, which the A2A routes put in `context.user.userName` (a `PeerUser`) after
 * checking the bearer token. A call without an authenticated user sees no task and saves none.
 *
 * One writer of progress: the worker appends every status and artifact to the log, atomically. The
 * SDK's `ResultManager` also saves the task after each event it sees (load, change, save); if that
 * save wrote the snapshot, a web process holding an older copy could put a task back to an earlier
 * state or drop an artifact the worker appended in between. So `save` only creates a task that
 * does not exist yet (the executor's first Task event, or the failure the SDK makes up when the
 * executor throws), and for an existing task only adds the history messages the stored task lacks
 * (the peer's follow-up message, which the SDK puts in the history before the executor runs).
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { TaskLog } from './task-log.ts';

/** The peer id of a call: the authenticated user's name, `undefined` for anyone else. */
export function ownerOf(context: ServerCallContext | undefined): string | undefined {
  const user = context?.user;
  if (user === undefined || !user.isAuthenticated) return undefined;
  const name = user.userName;
  return name === '' ? undefined : name;
}

/**
 * Creates the Redis task store.
 *
 * @example
 * const handler = new DefaultRequestHandler(card, createRedisTaskStore(log), executor, busManager);
 */
export function createRedisTaskStore(log: TaskLog): TaskStore {
  return {
    async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
      const owner = ownerOf(context);
      if (owner === undefined) return undefined;
      return (await log.load(taskId, owner))?.task;
    },

    async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
      const owner = ownerOf(context);
      const pageSize = params.pageSize ?? 50;
      if (owner === undefined) return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
      return log.list(owner, {
        pageSize,
        pageToken: params.pageToken,
        contextId: params.contextId,
        status: params.status,
        statusTimestampAfter: params.statusTimestampAfter,
        includeArtifacts: params.includeArtifacts,
      });
    },

    async save(task: Task, context: ServerCallContext): Promise<void> {
      const owner = ownerOf(context);
      if (owner === undefined) throw new SwitchboardError('http.unauthorized', 'A task is saved only for an authenticated peer.', { details: { taskId: task.id } });
      // One round trip: create, or add the history messages the stored task lacks.
      const outcome = await log.createOrAddHistory(task, owner);
      if (outcome === 'foreign') throw new SwitchboardError('http.not_found', `Task ${task.id} does not belong to this peer.`, { details: { taskId: task.id } });
    },
  };
}
