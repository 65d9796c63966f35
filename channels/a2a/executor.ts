/**
 * The A2A agent executor (web side): a peer's message becomes an injection on the durable queues,
 * and the task is created in Redis first, so the worker that answers it finds it. The executor does
 * not run the turn; the worker does, and its output reaches the task through the `a2a` sender.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type ServerCallContext } from '@a2a-js/sdk/server';
import type { PeerTurns } from './peer-turns.ts';
import { peerOfContext } from './peer-user.ts';
import { agentMessage } from './render.ts';
import type { TaskLog } from './task-log.ts';

/** What the executor needs; all passed in. */
export interface A2aExecutorOptions {
  readonly log: TaskLog;
  readonly turns: PeerTurns;
  /** Asks for a turn of a conversation, so a waiting turn sees a cancellation. */
  readonly wake: (conversationKey: string, reason: string) => Promise<void>;
  /** Told of each task a call creates, before the task is announced (the call's store). */
  readonly created?: (task: Task, context: ServerCallContext | undefined) => void;
}

/** Creates the executor the SDK's `DefaultRequestHandler` calls. */
export function createA2aExecutor(options: A2aExecutorOptions): AgentExecutor {
  const { log } = options;
  return {
    async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const { peer, transport } = peerOfContext(request.context);
      await options.turns.start({
        peer,
        message: request.userMessage,
        taskId: request.taskId,
        contextId: request.contextId,
        transport,
        ...(request.task === undefined ? {} : { existing: request.task }),
      }, (task) => {
        // A new task is stored exactly as announced; a continued one is not (its status is appended after).
        if (request.task === undefined) options.created?.(task, request.context);
        bus.publish(AgentEvent.task(task));
      });
    },

    /**
     * Cancels at once: the flag makes a running or waiting turn stop at its next step (a waiting
     * one is woken to do so, its approvals withdrawn), and the task is canceled now, so the
     * caller never waits on a turn; what the stopping turn would still deliver is refused by the
     * task log, which never moves a task out of a final state.
     */
    async cancelTask(taskId: string): Promise<void> {
      const stored = await log.load(taskId);
      if (stored === undefined) return;
      const { task } = stored;
      await log.requestCancel(taskId);
      const waited = task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? ' while it waited for your answer' : '';
      const words = agentMessage(`${taskId}.canceled`, { taskId, contextId: task.contextId }, [{ text: `The task was canceled${waited}.`, metadata: { partType: 'error' } }]);
      const event = { taskId, contextId: task.contextId, status: { state: TaskState.TASK_STATE_CANCELED, message: words, timestamp: new Date().toISOString() }, metadata: {} };
      await log.append(taskId, { kind: 'statusUpdate', data: event }, `${taskId}.canceled`);
      const peerId: unknown = task.metadata?.['peerId'];
      if (typeof peerId === 'string') await options.wake(`${peerId}:${task.contextId}`, `cancel-${taskId}`);
    },
  };
}
