/**
 * The SDK's `DefaultRequestHandler`, with switchboard's rule for continuing a task: only a task that
 * waits for the peer's answer (`input-required`, after a clarify) takes another message. The SDK
 * takes a message for any task not yet ended; one sent to a task still working or waiting for an
 * approval would start a second turn on it and could replace its answer.
 */
import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { stateName } from './peer-turns.ts';
import type { TaskLog } from './task-log.ts';
import { ownerOf } from './task-store.ts';

/** Refuses a message that continues a task of the caller not waiting for its answer. */
async function refuseContinuation(log: TaskLog, request: SendMessageRequest, context: ServerCallContext): Promise<void> {
  const taskId = request.message?.taskId ?? '';
  const owner = ownerOf(context);
  if (taskId.trim() === '' || owner === undefined) return;
  const stored = await log.load(taskId, owner);
  // An unknown task, or another peer's, is the SDK's to answer (not found).
  if (stored === undefined) return;
  const state = stored.task.status?.state;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return;
  throw new UnsupportedOperationError(`Task ${taskId} is ${stateName(stored.task)}; only a task waiting for your answer (input-required) takes another message. Send a new message without taskId to start another task.`);
}

/** The request handler of the `a2a` channel. */
export class PeerRequestHandler extends DefaultRequestHandler {
  private readonly log: TaskLog;

  constructor(log: TaskLog, ...rest: ConstructorParameters<typeof DefaultRequestHandler>) {
    super(...rest);
    this.log = log;
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    await refuseContinuation(this.log, params, context);
    return super.sendMessage(params, context);
  }

  override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await refuseContinuation(this.log, params, context);
    yield* super.sendMessageStream(params, context);
  }
}
