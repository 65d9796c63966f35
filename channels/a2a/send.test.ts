import { Role, TaskState, type Artifact, type Message, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { agentMessage, type A2aOutput } from './render.ts';
import { sendToTask } from './send.ts';
import { createTaskLog, type TaskLog } from './task-log.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const where = { taskId: 't1', contextId: 'c1' };

async function makeLog(): Promise<TaskLog> {
  const log = createTaskLog({ redis: await connect(), prefix: prefix() });
  const task: Task = { id: 't1', contextId: 'c1', status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined }, artifacts: [], history: [], metadata: {} };
  await log.create(task, 'p1');
  return log;
}

function delivery(payload: A2aOutput, idempotencyKey: string, taskId = 't1'): OutboundDelivery {
  return { channel: 'a2a', destination: { channel: 'a2a', address: 'c1', thread: { taskId } }, idempotencyKey, payload };
}

function answer(turnId: string, text: string): A2aOutput {
  const artifact: Artifact = { artifactId: `${turnId}.0`, name: '', description: '', parts: agentMessage('x', where, [{ text, metadata: { partType: 'response' } }]).parts, metadata: { turnId }, extensions: [] };
  return { kind: 'artifactUpdate', data: { ...where, artifact, append: false, lastChunk: true, metadata: undefined } };
}

/** The texts of a message's parts. */
function words(message: Message | undefined): string[] {
  return (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '?'));
}

const failure: A2aOutput = { kind: 'statusUpdate', data: { ...where, status: { state: TaskState.TASK_STATE_FAILED, message: agentMessage('f', where, [{ text: 'it broke', metadata: { partType: 'error' } }]), timestamp: undefined }, metadata: {} } };
const settled = (turnState: string): A2aOutput => ({ kind: 'final', ...where, turnId: 'turn-1', turnState });

describe('sendToTask', () => {
  it('ends a settled turn\'s round with its answer\'s parts as the final status message, once', async () => {
    const log = await makeLog();
    await sendToTask(log, delivery(answer('turn-1', 'Corfu, Tuesday'), 'a'));
    await sendToTask(log, delivery(answer('turn-0', 'an earlier turn'), 'b'));
    await sendToTask(log, delivery(settled('complete'), 'final'));
    const status = (await log.load('t1'))?.task.status;
    expect(status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(status?.message?.role).toBe(Role.ROLE_AGENT);
    expect(words(status?.message)).toEqual(['Corfu, Tuesday']);
    // Sent again (a retry), the settlement finds the round ended by this turn and appends nothing.
    expect(await sendToTask(log, delivery(settled('complete'), 'final-again'))).toEqual({});
    expect(await log.read('t1', '0')).toHaveLength(3);
  });

  it('stores a failure as a failure', async () => {
    const log = await makeLog();
    await sendToTask(log, delivery(failure, 'f1'));
    expect((await log.load('t1'))?.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it('stores a failure as the cancellation when the peer asked to cancel the task', async () => {
    const log = await makeLog();
    await log.requestCancel('t1');
    await sendToTask(log, delivery(failure, 'f1'));
    expect((await log.load('t1'))?.task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('ends a settled turn of a task asked to cancel as canceled, without its answer', async () => {
    const log = await makeLog();
    await sendToTask(log, delivery(answer('turn-1', 'too late'), 'a'));
    await log.requestCancel('t1');
    await sendToTask(log, delivery(settled('complete'), 'final'));
    const status = (await log.load('t1'))?.task.status;
    expect(status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(words(status?.message)).toEqual(['The task was canceled; the turn stopped.']);
  });

  it('fails for good a delivery that names no task, or a settlement whose task is not stored', async () => {
    const log = await makeLog();
    await expect(sendToTask(log, delivery(answer('turn-1', 'x'), 'a', ''))).rejects.toMatchObject({ code: 'delivery.failed', details: { permanent: true } });
    await expect(sendToTask(log, delivery(settled('complete'), 'final', 'gone'))).rejects.toMatchObject({ code: 'delivery.failed', details: { permanent: true, taskId: 'gone' } });
  });
});
