import { TaskState, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { awaitRound, isRoundOver, type AwaitRoundDeps } from './await-task.ts';
import { appendStatus, textPart } from './peer-route-fixtures.ts';
import { peerTextMessage } from './peer-turns.ts';
import { createTaskLog } from './task-log.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const where = { taskId: 't1', contextId: 'c1' };

async function withTask(state: TaskState = TaskState.TASK_STATE_SUBMITTED): Promise<AwaitRoundDeps> {
  const redis = await connect();
  const log = createTaskLog({ redis, prefix: prefix() });
  const task: Task = { id: 't1', contextId: 'c1', status: { state, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [peerTextMessage('hello', where)], metadata: {} };
  await log.create(task, 'alpha');
  return { log, redis };
}

/** Resolves once the XREAD of a wait is blocked on the server (counted by `INFO clients`). */
async function blockedReaders(deps: AwaitRoundDeps, count: number): Promise<void> {
  for (;;) {
    const info = await deps.redis.info('clients');
    if (Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? '0') >= count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('awaitRound', () => {
  it('resolves at once with a task whose round is over', async () => {
    const deps = await withTask(TaskState.TASK_STATE_INPUT_REQUIRED);
    const task = await awaitRound(deps, 't1', 60_000);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(isRoundOver(task)).toBe(true);
  });

  it('waits through working and auth-required, and resolves when the task completes', async () => {
    const deps = await withTask();
    const waiting = awaitRound(deps, 't1', 60_000);
    await blockedReaders(deps, 1);
    await appendStatus(deps.log, where, TaskState.TASK_STATE_WORKING);
    await appendStatus(deps.log, where, TaskState.TASK_STATE_AUTH_REQUIRED, [textPart('approve?', 'approval-request')]);
    await appendStatus(deps.log, where, TaskState.TASK_STATE_WORKING);
    await appendStatus(deps.log, where, TaskState.TASK_STATE_COMPLETED, [textPart('done')]);
    const task = await waiting;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'done' });
  });

  it('misses no event appended between its first read and its blocking read', async () => {
    const deps = await withTask();
    const waiting = awaitRound(deps, 't1', 60_000);
    // Appended at once, most likely before the wait blocks: it must still be seen.
    await appendStatus(deps.log, where, TaskState.TASK_STATE_FAILED, [textPart('broke', 'error')]);
    expect((await waiting).status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it('answers the task as it is when the time is up, without rejecting', async () => {
    const deps = await withTask();
    await appendStatus(deps.log, where, TaskState.TASK_STATE_WORKING);
    const task = await awaitRound(deps, 't1', 50);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(await awaitRound(deps, 't1', 0)).toEqual(task);
  });

  it('stops waiting when the signal aborts', async () => {
    const deps = await withTask();
    const gone = new AbortController();
    const waiting = awaitRound(deps, 't1', 60_000, gone.signal);
    await blockedReaders(deps, 1);
    gone.abort();
    expect((await waiting).status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
  });

  it('rejects for a task that is not stored', async () => {
    const deps = await withTask();
    const error: unknown = await awaitRound(deps, 'nope', 1000).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SwitchboardError);
    expect((error as SwitchboardError).code).toBe('http.not_found');
  });
});
