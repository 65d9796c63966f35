/**
 * The `a2a` channel's sender: each rendered output is appended to its task in Redis (the task's
 * snapshot and its event stream, in one step), where `GetTask` reads it and every web process's
 * event bus picks it up. A task's final status is written here, from the answer's artifacts.
 */
import { TaskState, type Artifact } from '@a2a-js/sdk';
import type { OutboundDelivery, SendReceipt } from '../../queues/outbound-types.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { agentMessage, taskOf, type A2aOutput } from './render.ts';
import type { RoundEnd, TaskLog } from './task-log.ts';
import { fromA2aPart } from './a2a-parts.ts';

/** What is appended to a task: an output other than the turn's settlement. */
type TaskEvent = Exclude<A2aOutput, { readonly kind: 'final' }>;

/** Task states after which no more events come for the task's current round. */
const SETTLED_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
]);

/** The final task state of a turn that settled in `turnState` (an app's own settling state completes it). */
function finalState(turnState: string): TaskState {
  if (turnState === 'clarifying') return TaskState.TASK_STATE_INPUT_REQUIRED;
  if (turnState === 'error') return TaskState.TASK_STATE_FAILED;
  return TaskState.TASK_STATE_COMPLETED;
}

/** The parts of the artifacts `turnId` produced, in order: the turn's answer as one message. */
function answerParts(artifacts: readonly Artifact[], turnId: string) {
  return artifacts.filter((artifact) => artifact.metadata?.['turnId'] === turnId).flatMap((artifact) => artifact.parts.map(fromA2aPart));
}

/** The status event that ends the task's round for a turn settled in `turnState`, or none when a part already ended it. */
function finalStatus(round: RoundEnd, output: Extract<A2aOutput, { kind: 'final' }>): TaskEvent | undefined {
  const { canceled } = round;
  const current = round.status;
  if (current !== undefined && SETTLED_STATES.has(current.state) && current.message?.metadata?.['turnId'] === output.turnId && !canceled) return undefined;
  const where = { taskId: output.taskId, contextId: output.contextId };
  const state = canceled ? TaskState.TASK_STATE_CANCELED : finalState(output.turnState);
  const parts = state === TaskState.TASK_STATE_COMPLETED ? answerParts(round.artifacts, output.turnId) : [];
  const words = canceled ? 'The task was canceled; the turn stopped.' : `The turn ended in "${output.turnState}".`;
  const message = agentMessage(`${output.turnId}.final`, where, parts.length > 0 ? parts : [{ text: words, metadata: { partType: canceled ? 'error' : 'response' } }], { turnId: output.turnId, finalizedBy: output.turnState });
  const metadata = { turnId: output.turnId, turnState: output.turnState };
  return { kind: 'statusUpdate', data: { ...where, status: { state, message, timestamp: new Date().toISOString() }, metadata } };
}

/**
 * The event as stored: a failure of a task whose peer asked to cancel it is its cancellation. The
 * flag is read for failures alone (one read less per part); the turn's settlement reads it with
 * the task's status and artifacts (`finalEvent`).
 */
async function asStored(log: TaskLog, taskId: string, output: TaskEvent): Promise<TaskEvent> {
  if (output.kind !== 'statusUpdate' || output.data.status?.state !== TaskState.TASK_STATE_FAILED) return output;
  if (!(await log.cancelRequested(taskId))) return output;
  return { kind: 'statusUpdate', data: { ...output.data, status: { ...output.data.status, state: TaskState.TASK_STATE_CANCELED } } };
}

/**
 * Sends one delivery of the `a2a` channel: appends it to its task, once per idempotency key.
 * Throws `delivery.failed` (permanent) for a delivery without a task.
 */
export async function sendToTask(log: TaskLog, delivery: OutboundDelivery): Promise<SendReceipt> {
  const { taskId } = taskOf(delivery.destination);
  if (taskId === '') throw new SwitchboardError('delivery.failed', 'An a2a delivery names no task.', { details: { permanent: true, address: delivery.destination.address } });
  const output = delivery.payload as unknown as A2aOutput;
  const event = output.kind === 'final' ? await finalEvent(log, taskId, output) : await asStored(log, taskId, output);
  if (event === undefined) return {};
  const id = await log.append(taskId, event, delivery.idempotencyKey);
  return id === undefined ? {} : { providerMessageId: id };
}

async function finalEvent(log: TaskLog, taskId: string, output: Extract<A2aOutput, { kind: 'final' }>): Promise<TaskEvent | undefined> {
  const stored = await log.roundEnd(taskId);
  if (stored === undefined) throw new SwitchboardError('delivery.failed', `Task ${taskId} is not stored.`, { details: { permanent: true, taskId } });
  return finalStatus(stored, output);
}
