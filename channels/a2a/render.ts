/**
 * What the turn's output becomes on an A2A task: status updates (the turn's state, with the
 * conversational parts that flush at once) and artifact updates (the parts that make the answer).
 * A settling turn state becomes a `final` marker that the sender turns into the task's last status,
 * built from the answer's artifacts as they were stored.
 */
import { Role, TaskState, type Message, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { RenderInput } from '../../src/runtime/delivery/render-input.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { toA2aPart } from './a2a-parts.ts';

/** One rendered message of the `a2a` channel. */
export type A2aOutput =
  | { readonly kind: 'statusUpdate'; readonly data: TaskStatusUpdateEvent }
  | { readonly kind: 'artifactUpdate'; readonly data: TaskArtifactUpdateEvent }
  /** The turn settled in `turnState`; the sender writes the task's final status. */
  | { readonly kind: 'final'; readonly taskId: string; readonly contextId: string; readonly turnId: string; readonly turnState: string };

/** Where a destination's task is. */
export function taskOf(destination: Destination): { taskId: string; contextId: string } {
  return { taskId: destination.thread?.['taskId'] ?? '', contextId: destination.address };
}

/** An agent message of the task carrying `parts`. */
export function agentMessage(id: string, where: { taskId: string; contextId: string }, parts: readonly Part[], metadata: Record<string, unknown> = {}): Message {
  return { messageId: id, taskId: where.taskId, contextId: where.contextId, role: Role.ROLE_AGENT, parts: parts.map(toA2aPart), metadata, extensions: [], referenceTaskIds: [] };
}

function status(where: { taskId: string; contextId: string }, state: TaskState, message: Message | undefined, metadata: Record<string, unknown>): A2aOutput {
  return { kind: 'statusUpdate', data: { taskId: where.taskId, contextId: where.contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata } };
}

/**
 * An approval request as a peer sees it: what waits and until when, without the short code, the
 * arguments' hash and the session, which only serve the people who decide (a peer never does).
 */
function forPeer(part: Part): Part {
  if (part.data === undefined || part.metadata.partType !== 'approval-request') return part;
  const { shortCode: _code, argsHash: _hash, session: _session, ...data } = part.data;
  return { ...part, data };
}

/** The task state an emitted part puts the task in, when it is shown as a status (not an artifact). */
function statusStateOf(part: Part, turnState: string): TaskState | undefined {
  switch (part.metadata.partType) {
    case 'ack':
    case 'thinking':
    case 'progress':
      return TaskState.TASK_STATE_WORKING;
    case 'clarify':
      return turnState === 'clarifying' ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_WORKING;
    case 'error':
      return turnState === 'error' ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_WORKING;
    case 'approval-request':
      return TaskState.TASK_STATE_AUTH_REQUIRED;
    default:
      return undefined;
  }
}

function partOutput(input: Extract<RenderInput, { type: 'part' }>, where: { taskId: string; contextId: string }): A2aOutput {
  const { partId, turnId, turnState } = input;
  const part = input.part.metadata.partType === 'approval-request' ? forPeer(input.part) : input.part;
  const metadata = { turnId, turnState, partType: part.metadata.partType };
  const state = statusStateOf(part, turnState);
  if (state !== undefined) return status(where, state, agentMessage(partId, where, [part], metadata), metadata);
  return {
    kind: 'artifactUpdate',
    data: {
      taskId: where.taskId,
      contextId: where.contextId,
      artifact: { artifactId: partId, name: part.metadata.partType, description: '', parts: [toA2aPart(part)], metadata, extensions: [] },
      append: false,
      lastChunk: true,
      metadata,
    },
  };
}


/**
 * The A2A outputs of one render input for `destination` (an `a2a` destination: the context id as
 * address, the task id in `thread.taskId`).
 */
export function renderA2a(input: RenderInput, destination: Destination): A2aOutput[] {
  const where = taskOf(destination);
  switch (input.type) {
    case 'part':
      return [partOutput(input, where)];
    case 'approval-request': {
      const metadata = { turnId: input.record.turnId, turnState: 'suspended', partType: 'approval-request', approvalId: input.record.approvalId };
      const text = `Waiting for a person's approval of "${input.record.toolName}" (expires ${input.record.expiresAt}). An approver decides on their own channel; the task goes on by itself.`;
      const note: Part = { text, metadata: { partType: 'thinking' } };
      return [status(where, TaskState.TASK_STATE_AUTH_REQUIRED, agentMessage(input.partId, where, [note, forPeer(input.part)], metadata), metadata)];
    }
    case 'approval-update': {
      const { record } = input;
      const metadata = { turnId: record.turnId, approvalId: record.approvalId, decision: record.status };
      const text = `The approval of "${record.toolName}" is ${record.status}.`;
      return [status(where, TaskState.TASK_STATE_WORKING, agentMessage(`${record.approvalId}.${record.status}`, where, [{ text, metadata: { partType: 'progress' } }], metadata), metadata)];
    }
    case 'turn':
      // The settlement ends the round; any other state (awaiting, delegated, passed, an app's
      // own waiting state) is work going on. Suspension was shown by its approval request.
      if (input.settled === true) return [{ kind: 'final', ...where, turnId: input.turnId, turnState: input.turnState }];
      if (input.turnState === 'suspended') return [];
      return [status(where, TaskState.TASK_STATE_WORKING, undefined, { turnId: input.turnId, turnState: input.turnState })];
    case 'envelope':
      return [
        ...input.parts.map((part, index) => partOutput({ type: 'part', turnId: input.turnId, partId: `${input.turnId}.env.${String(index)}`, turnState: input.turnState, part }, where)),
        { kind: 'final', ...where, turnId: input.turnId, turnState: input.turnState },
      ];
    case 'notice':
      return [status(where, TaskState.TASK_STATE_WORKING, agentMessage(input.id, where, [{ text: input.text, metadata: { partType: 'progress' } }]), {})];
  }
}
