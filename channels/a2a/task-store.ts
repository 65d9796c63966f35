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
 *
 * Since the SDK saves after every event it relays, a save of a task this store has just loaded
 * (the SDK loads before each save) sends only the user messages the loaded task did not have, and
 * nothing at all, no Redis call, when there are none: the agent messages, the status and the
 * artifacts are the worker's, already in the log.
 *
 * The SDK also loads the task before it applies each event of a call, and once more to answer a
 * Task event. Within one call (one `ServerCallContext`) the store answers those from the task the
 * call last saved: the call's bus delivers every event of the task's stream in order, and the SDK
 * applies each one to what it loaded, so what it saved after the last event is the stored task as
 * of that event (an event applied twice, once in a first load from Redis and once from the bus,
 * changes nothing: artifacts are replaced by id, messages kept once by id, metadata merged over).
 * Only a call's first load reads Redis; the others cost a copy.
 */
import { Role, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
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

/** How many tasks {@link createRedisTaskStore} remembers the stored message ids of. */
const REMEMBERED_TASKS = 1000;

/**
 * The message ids of tasks known to be stored, by owner and task id: learnt from a load (which
 * the SDK does before each save) or a save, forgotten when a load finds no task. A message id in
 * it is in the stored history (a history only grows).
 */
function storedMessages(): {
  get(owner: string, taskId: string): Set<string> | undefined;
  set(owner: string, taskId: string, messageIds: Iterable<string>): void;
  forget(owner: string, taskId: string): void;
} {
  const byTask = new Map<string, Set<string>>();
  const key = (owner: string, taskId: string): string => `${owner}\n${taskId}`;
  return {
    get: (owner, taskId) => byTask.get(key(owner, taskId)),
    set(owner, taskId, messageIds) {
      const at = key(owner, taskId);
      // Re-inserted, so the least recently used task is the first one dropped.
      byTask.delete(at);
      byTask.set(at, new Set(messageIds));
      for (const oldest of byTask.keys()) {
        if (byTask.size <= REMEMBERED_TASKS) break;
        byTask.delete(oldest);
      }
    },
    forget: (owner, taskId) => { byTask.delete(key(owner, taskId)); },
  };
}

/** The SDK's `TaskStore`, told also of a task a call created itself. */
export interface CallTaskStore extends TaskStore {
  /**
   * Records that the call of `context` just stored `task`, new, exactly as given (the executor,
   * before it announces the task): the call's next load of it needs no read. The task must not
   * be changed afterwards.
   */
  created(task: Task, context: ServerCallContext | undefined): void;
}

/**
 * A copy of `task` that the SDK may change as it changes a task it loaded, before it saves it:
 * it sets the task's status, history and metadata anew, and changes its artifacts list and an
 * artifact's fields in place (an artifact update); a status is copied too, for a caller that
 * sets its state. Messages and parts are shared: nothing changes them. A `structuredClone` of
 * the whole task cost the A2A path about 4% of its CPU, several times a call.
 */
function editableCopy(task: Task): Task {
  return {
    ...task,
    status: task.status === undefined ? undefined : { ...task.status },
    artifacts: task.artifacts.map((artifact) => ({ ...artifact })),
    history: [...task.history],
    metadata: task.metadata === undefined ? undefined : { ...task.metadata },
  };
}

/**
 * Creates the Redis task store.
 *
 * @example
 * const handler = new DefaultRequestHandler(card, createRedisTaskStore(log), executor, busManager);
 */
export function createRedisTaskStore(log: TaskLog): CallTaskStore {
  const stored = storedMessages();
  // Per call, the task it saved last, by task id; dropped with the call's context. Kept as it is:
  // the SDK never changes a task it saved (it loads a copy for each event).
  const saved = new WeakMap<ServerCallContext, Map<string, Task>>();
  const remember = (context: ServerCallContext, task: Task): void => {
    const calls = saved.get(context) ?? new Map<string, Task>();
    saved.set(context, calls);
    calls.set(task.id, task);
  };
  return {
    created(task, context) {
      const owner = ownerOf(context);
      if (owner === undefined || context === undefined) return;
      stored.set(owner, task.id, task.history.map((message) => message.messageId));
      remember(context, task);
    },

    async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
      const owner = ownerOf(context);
      if (owner === undefined) return undefined;
      const own = saved.get(context)?.get(taskId);
      if (own !== undefined) return editableCopy(own);
      const task = (await log.load(taskId, owner))?.task;
      if (task === undefined) stored.forget(owner, taskId);
      else stored.set(owner, taskId, task.history.map((message) => message.messageId));
      return task;
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
      const known = stored.get(owner, task.id);
      let sent = task;
      if (known !== undefined) {
        // The task exists: only a user message it lacks is worth sending (agent messages, the
        // status and the artifacts are the worker's, already in the log).
        const lacking = task.history.filter((message) => message.role === Role.ROLE_USER && !known.has(message.messageId));
        if (lacking.length === 0) {
          remember(context, task);
          return;
        }
        // Should the task have expired since it was loaded, this creates it with its status
        // (without the status message) and these messages.
        sent = { ...task, status: task.status === undefined ? undefined : { ...task.status, message: undefined }, history: lacking, artifacts: [] };
      }
      // One round trip: create, or add the history messages the stored task lacks.
      const outcome = await log.createOrAddHistory(sent, owner);
      if (outcome === 'foreign') {
        stored.forget(owner, task.id);
        throw new SwitchboardError('http.not_found', `Task ${task.id} does not belong to this peer.`, { details: { taskId: task.id } });
      }
      // Created with, or added to: every message sent is now stored.
      stored.set(owner, task.id, [...(known ?? []), ...sent.history.map((message) => message.messageId)]);
      remember(context, task);
    },
  };
}
