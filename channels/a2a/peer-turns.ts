/**
 * A peer's request as a task, whichever way it came (A2A, MCP, the webhook reply): the task is
 * stored first (so the worker that answers finds it), then the message is enqueued durably. The
 * buffered transports (MCP, the webhook reply) then wait for the task to settle and read its
 * envelope: the final status message of its answer.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { Injection } from '../../src/runtime/injection.ts';
import { fromA2aPart } from './a2a-parts.ts';
import { normalisePeerMessage, type PeerTransport } from './normalise.ts';
import type { CallingPeer } from './peer-user.ts';
import { agentMessage } from './render.ts';
import type { PeerMessages } from './peer-messages.ts';
import type { TaskLog } from './task-log.ts';

/** What starting a peer's task needs; all passed in. */
export interface PeerTurnsOptions {
  readonly log: TaskLog;
  readonly tenantId: string;
  /** Durably enqueues an injection (the channel context's `enqueue`). */
  readonly enqueue: (injection: Injection) => Promise<{ readonly duplicate: boolean }>;
  readonly clock: () => Date;
  /** Which task each peer message started (a repeated message points to it). */
  readonly messages: PeerMessages;
}

/** Task states in which a peer's task waits for nobody on our side: the round is over. */
export const ROUND_OVER_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
]);

/** One request of a peer. */
export interface PeerRequest {
  readonly peer: CallingPeer;
  readonly message: Message;
  readonly taskId: string;
  readonly contextId: string;
  readonly transport: PeerTransport;
  /** The stored task when the message continues one (answers its `input-required`). */
  readonly existing?: Task;
}

function statusEvent(taskId: string, contextId: string, state: TaskState, message: Message | undefined) {
  return { kind: 'statusUpdate' as const, data: { taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: {} } };
}

/** A user message of a peer carrying `text`. */
export function peerTextMessage(text: string, where: { taskId: string; contextId: string }, messageId: string = randomUUID()): Message {
  return { messageId, ...where, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} }], metadata: {}, extensions: [], referenceTaskIds: [] };
}

/**
 * Rejects a task whose message was received before, naming the task it started (also as
 * `metadata.duplicateOf` of the status message, for a client to follow).
 */
async function refuseDuplicate(log: TaskLog, injectionId: string, messageId: string, where: { taskId: string; contextId: string }, first: string): Promise<void> {
  const words = first === where.taskId
    ? `Message ${messageId} was received before; nothing new was started.`
    : `Message ${messageId} was received before, as task ${first}; nothing new was started. Read that task with GetTask.`;
  const refusal = agentMessage(`${injectionId}.duplicate`, where, [{ text: words, metadata: { partType: 'error' } }], { duplicateOf: first });
  await log.append(where.taskId, statusEvent(where.taskId, where.contextId, TaskState.TASK_STATE_REJECTED, refusal), `${injectionId}.duplicate`);
}

async function failTask(log: TaskLog, where: { taskId: string; contextId: string }, injectionId: string, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  const words = agentMessage(`${injectionId}.failed`, where, [{ text: `The message could not be queued: ${reason}`, metadata: { partType: 'error' } }]);
  await log.append(where.taskId, statusEvent(where.taskId, where.contextId, TaskState.TASK_STATE_FAILED, words), `${injectionId}.failed`).catch(() => undefined);
}

/** Starts peer tasks. */
export function createPeerTurns(options: PeerTurnsOptions) {
  const { log } = options;
  return {
    /**
     * Stores the task (new, or submitted again when it continues one), then enqueues the message.
     * A message received before (the same peer and message id) starts nothing: the task is
     * rejected, saying so. `announce` gets the stored task before the message is enqueued (the SDK needs
     * it first on the bus). Resolves to the stored task.
     *
     * @throws SwitchboardError `channel.invalid` for a message without text (nothing is stored).
     */
    async start(request: PeerRequest, announce?: (task: Task) => void): Promise<Task> {
      const { peer, message, taskId, contextId, transport } = request;
      const receivedAt = options.clock().toISOString();
      const injection = normalisePeerMessage({ peer, message, taskId, contextId, transport, receivedAt }, options.tenantId);
      const submitted = { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: receivedAt };
      let task: Task;
      if (request.existing === undefined) {
        task = { id: taskId, contextId, status: submitted, artifacts: [], history: [message], metadata: { peerId: peer.id, transport } };
        await log.create(task, peer.id);
        announce?.(task);
      } else {
        // The SDK wants the task first on the bus, and a bus kept from the task's earlier round
        // delivers the stream at once: announce the task submitted again, then store that status.
        task = { ...request.existing, status: submitted };
        announce?.(task);
        await log.append(taskId, statusEvent(taskId, contextId, TaskState.TASK_STATE_SUBMITTED, undefined), `${injection.id}.submitted`);
      }
      // Both before the message is enqueued: nothing the worker appends is in the announced task.
      try {
        // The enqueue decides which task runs the message; the record points a repeat to it. The
        // record is asked for in the enqueue's tick, ahead of it (one socket write, run in that
        // order); a record that could not be read is written over by the task the enqueue took.
        const [recorded, enqueued] = await Promise.allSettled([options.messages.firstTask(peer.id, message.messageId, taskId), options.enqueue(injection)]);
        if (enqueued.status === 'rejected') throw enqueued.reason;
        const { duplicate } = enqueued.value;
        const first = recorded.status === 'fulfilled' ? recorded.value : undefined;
        if (!duplicate && first !== taskId) await options.messages.claim(peer.id, message.messageId, taskId);
        if (duplicate) await refuseDuplicate(log, injection.id, message.messageId, { taskId, contextId }, first ?? (await options.messages.firstTask(peer.id, message.messageId, taskId)));
      } catch (error) {
        // The task is stored: it must not be left submitted forever when its message was not.
        await failTask(log, { taskId, contextId }, injection.id, error);
        throw error;
      }
      return task;
    },
  };
}

/** The start function of {@link createPeerTurns}. */
export type PeerTurns = ReturnType<typeof createPeerTurns>;

/** A2A task states by the names peers read in JSON. */
const STATE_NAMES: Readonly<Partial<Record<TaskState, string>>> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
};

/** A task's state as a word (`completed`, `input-required`, ...). */
export function stateName(task: Task): string {
  return STATE_NAMES[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? 'unknown';
}

/**
 * A task as the buffered transports answer it: its state, and the envelope of its current status
 * message (`role`, `parts` with `metadata.partType`, `meta`), or no envelope while it is working.
 */
export function bufferedAnswer(task: Task): Record<string, unknown> {
  const message = task.status?.message;
  const parts = (message?.parts ?? []).map(fromA2aPart);
  const turnId: unknown = message?.metadata?.['turnId'];
  return {
    taskId: task.id,
    contextId: task.contextId,
    state: stateName(task),
    ...(message === undefined
      ? {}
      : { envelope: { role: 'agent', parts, meta: { taskId: task.id, contextId: task.contextId, ...(typeof turnId === 'string' ? { turnId } : {}), producedAt: task.status?.timestamp, finalizedBy: stateName(task) } } }),
  };
}
