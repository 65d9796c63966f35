import { Role, TaskState, type Artifact, type Message, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createTaskLog, type TaskLog, type TaskLogEvent, type TaskLogOptions } from './task-log.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

async function makeLog(options: Partial<TaskLogOptions> = {}): Promise<TaskLog> {
  return createTaskLog({ redis: await connect(), prefix: prefix(), ...options });
}

/** A text message of the task. */
function message(id: string, text: string, role: Role = Role.ROLE_USER, taskId = 't1', contextId = 'c1'): Message {
  return { messageId: id, taskId, contextId, role, parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }], metadata: {}, extensions: [], referenceTaskIds: [] };
}

/** A new task in `state` whose history is one user message. */
function newTask(id = 't1', contextId = 'c1', state: TaskState = TaskState.TASK_STATE_SUBMITTED): Task {
  return { id, contextId, status: { state, message: undefined, timestamp: '2026-01-01T00:00:00.000Z' }, artifacts: [], history: [message(`${id}-m0`, 'hello', Role.ROLE_USER, id, contextId)], metadata: { peerId: 'p1' } };
}

function statusEvent(taskId: string, state: TaskState, words?: string, metadata: Record<string, unknown> = {}): TaskLogEvent {
  const status = { state, message: words === undefined ? undefined : message(`${taskId}-${words}`, words, Role.ROLE_AGENT, taskId), timestamp: new Date().toISOString() };
  return { kind: 'statusUpdate', data: { taskId, contextId: 'c1', status, metadata } };
}

function artifact(artifactId: string, texts: string[], name = ''): Artifact {
  return { artifactId, name, description: '', parts: texts.map((value) => ({ content: { $case: 'text' as const, value }, mediaType: 'text/plain', filename: '', metadata: undefined })), metadata: undefined, extensions: [] };
}

function artifactEvent(taskId: string, artifactId: string, texts: string[], append = false): TaskLogEvent {
  return { kind: 'artifactUpdate', data: { taskId, contextId: 'c1', artifact: artifact(artifactId, texts), append, lastChunk: false, metadata: undefined } };
}

function texts(task: Task | undefined): string[][] {
  return (task?.artifacts ?? []).map((item) => item.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '?')));
}

describe('createTaskLog', () => {
  it('creates a task once and loads it back, with its history', async () => {
    const log = await makeLog();
    expect(await log.create(newTask(), 'p1')).toBe(true);
    expect(await log.create({ ...newTask(), metadata: { other: true } }, 'p1')).toBe(false);
    const loaded = await log.load('t1');
    expect(loaded?.owner).toBe('p1');
    expect(loaded?.lastEventId).toBeUndefined();
    expect(loaded?.task).toEqual(newTask());
  });

  it('keeps a task from every other owner', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    expect(await log.load('t1', 'p2')).toBeUndefined();
    expect((await log.load('t1', 'p1'))?.task.id).toBe('t1');
    expect((await log.list('p2')).tasks).toEqual([]);
    expect(await log.createOrAddHistory({ ...newTask(), history: [message('x', 'intruder')] }, 'p2')).toBe('foreign');
    expect((await log.load('t1'))?.task.history.map((item) => item.messageId)).toEqual(['t1-m0']);
  });

  it('applies a status update to the snapshot and appends it to the stream, in order', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    const first = await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'on it', { turnId: 'turn-1' }));
    const second = await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_COMPLETED, 'done'));
    const loaded = await log.load('t1');
    expect(loaded?.lastEventId).toBe(second);
    expect(loaded?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(loaded?.task.history.map((item) => item.messageId)).toEqual(['t1-m0', 't1-on it', 't1-done']);
    expect(loaded?.task.metadata).toEqual({ peerId: 'p1', turnId: 'turn-1' });
    const entries = await log.read('t1', '0');
    expect(entries.map((entry) => entry.id)).toEqual([first, second]);
    expect(entries.map((entry) => (entry.event.kind === 'statusUpdate' ? entry.event.data.status?.state : undefined))).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    expect(await log.read('t1', first ?? '0')).toHaveLength(1);
  });

  it('replaces an artifact by id, or adds parts to it with append, keeping the artifacts in order', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    await log.append('t1', artifactEvent('t1', 'a', ['one']));
    await log.append('t1', artifactEvent('t1', 'b', ['bee']));
    await log.append('t1', artifactEvent('t1', 'a', ['two'], true));
    expect(texts((await log.load('t1'))?.task)).toEqual([['one', 'two'], ['bee']]);
    await log.append('t1', artifactEvent('t1', 'a', ['fresh']));
    expect(texts((await log.load('t1'))?.task)).toEqual([['fresh'], ['bee']]);
  });

  it('appends a history message once', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    expect(await log.appendHistory('t1', message('m1', 'again'))).toBe(true);
    expect(await log.appendHistory('t1', message('m1', 'again'))).toBe(false);
    expect(await log.createOrAddHistory({ ...newTask(), history: [message('t1-m0', 'hello'), message('m2', 'more')] }, 'p1')).toBe('existing');
    expect((await log.load('t1'))?.task.history.map((item) => item.messageId)).toEqual(['t1-m0', 'm1', 'm2']);
    expect(await log.read('t1', '0')).toEqual([]);
  });

  it('refuses events for a task that does not exist', async () => {
    const log = await makeLog();
    await expect(log.append('nope', statusEvent('nope', TaskState.TASK_STATE_WORKING))).rejects.toBeInstanceOf(SwitchboardError);
    await expect(log.appendHistory('nope', message('m', 'x'))).rejects.toMatchObject({ code: 'internal', details: { reason: 'no_task' } });
    expect(await log.requestCancel('nope')).toBe(false);
  });

  it('stores an append once per idempotency key', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    const first = await log.append('t1', artifactEvent('t1', 'a', ['x'], true), 'delivery-1');
    const again = await log.append('t1', artifactEvent('t1', 'a', ['x'], true), 'delivery-1');
    expect(again).toBe(first);
    expect(texts((await log.load('t1'))?.task)).toEqual([['x']]);
    expect(await log.read('t1', '0')).toHaveLength(1);
  });

  it('appends nothing to a task in a final state: no status, not even the same one again, and no artifact', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_CANCELED, 'stopped'));
    expect(await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'late'))).toBeUndefined();
    expect(await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_CANCELED, 'again'))).toBeUndefined();
    expect(await log.append('t1', artifactEvent('t1', 'late', ['answer']))).toBeUndefined();
    expect((await log.load('t1'))?.task.artifacts).toEqual([]);
    expect((await log.load('t1'))?.task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await log.read('t1', '0')).toHaveLength(1);
  });

  it('makes every key expire, and refreshes the expiry with an append once a refresh interval passed', async () => {
    const redis = await connect();
    let clock = 1_000_000;
    const log = createTaskLog({ redis, prefix: prefix(), ttlSeconds: 1000, expiryRefreshSeconds: 60, now: () => clock });
    await log.create(newTask(), 'p1');
    await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'go'));
    await log.requestCancel('t1');
    const keys = ['a2a:task:t1', 'a2a:task:t1:history', 'a2a:task:t1:events', 'a2a:task:t1:cancel', 'a2a:peer:p1:tasks'].map((key) => `${prefix()}:${key}`);
    for (const key of keys) {
      const ttl = await redis.ttl(key);
      expect(ttl, key).toBeGreaterThan(900);
      expect(ttl, key).toBeLessThanOrEqual(1000);
    }
    const [snapshot = '', history = '', events = ''] = keys;
    for (const key of [snapshot, history, events]) await redis.expire(key, 10);
    // Within the interval: the append sends no EXPIRE.
    clock += 59_000;
    await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'again'));
    for (const key of [snapshot, history, events]) expect(await redis.ttl(key), key).toBeLessThanOrEqual(10);
    // Past it: the next append refreshes all three.
    clock += 1_000;
    await log.append('t1', artifactEvent('t1', 'a', ['one']));
    for (const key of [snapshot, history, events]) expect(await redis.ttl(key), key).toBeGreaterThan(900);
  });

  it('lists an owner’s tasks newest first, by page, with filters', async () => {
    let clock = 1_000;
    const log = await makeLog({ now: () => (clock += 1000) });
    for (const id of ['t1', 't2', 't3', 't4', 't5']) await log.create(newTask(id, id === 't2' ? 'c2' : 'c1'), 'p1');
    await log.create(newTask('other'), 'p2');
    await log.append('t3', statusEvent('t3', TaskState.TASK_STATE_WORKING, 'w'));
    await log.append('t3', artifactEvent('t3', 'a', ['x']));

    const first = await log.list('p1', { pageSize: 2 });
    expect(first.tasks.map((task) => task.id)).toEqual(['t5', 't4']);
    expect(first.totalSize).toBe(5);
    const second = await log.list('p1', { pageSize: 2, pageToken: first.nextPageToken });
    expect(second.tasks.map((task) => task.id)).toEqual(['t3', 't2']);
    expect(second.tasks[0]?.artifacts).toEqual([]);
    const third = await log.list('p1', { pageSize: 2, pageToken: second.nextPageToken });
    expect(third.tasks.map((task) => task.id)).toEqual(['t1']);
    expect(third.nextPageToken).toBe('');

    expect((await log.list('p1', { contextId: 'c2' })).tasks.map((task) => task.id)).toEqual(['t2']);
    const working = await log.list('p1', { status: TaskState.TASK_STATE_WORKING, includeArtifacts: true });
    expect(working.tasks.map((task) => task.id)).toEqual(['t3']);
    expect(texts(working.tasks[0])).toEqual([['x']]);
    expect((await log.list('p1', { pageToken: 'garbage' })).tasks).toEqual([]);
  });

  it('forgets a listed task whose keys expired', async () => {
    const redis = await connect();
    const log = createTaskLog({ redis, prefix: prefix() });
    await log.create(newTask('t1'), 'p1');
    await log.create(newTask('t2'), 'p1');
    await redis.del(`${prefix()}:a2a:task:t1`);
    expect((await log.list('p1')).tasks.map((task) => task.id)).toEqual(['t2']);
    expect(await redis.zrange(`${prefix()}:a2a:peer:p1:tasks`, '0', '-1')).toEqual(['t2']);
  });

  it('tells a reader where to start: the last event, and the terminal status of a task that ended', async () => {
    const log = await makeLog();
    expect(await log.streamStart('t1')).toEqual({ lastEventId: undefined, ended: undefined });
    await log.create(newTask(), 'p1');
    const working = await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'on it'));
    expect(await log.streamStart('t1')).toEqual({ lastEventId: working, ended: undefined });
    const done = statusEvent('t1', TaskState.TASK_STATE_COMPLETED, 'done');
    const last = await log.append('t1', done);
    expect(await log.streamStart('t1')).toEqual({ lastEventId: last, ended: { kind: 'statusUpdate', data: { ...done.data, metadata: {} } } });
  });

  it('reads what ending a round needs in one step: status, artifacts folded, and the cancel flag', async () => {
    const log = await makeLog();
    expect(await log.roundEnd('t1')).toBeUndefined();
    await log.create(newTask(), 'p1');
    expect(await log.roundEnd('t1')).toEqual({ status: newTask().status, artifacts: [], canceled: false });
    await log.append('t1', artifactEvent('t1', 'a', ['one']));
    await log.append('t1', artifactEvent('t1', 'b', ['bee']));
    await log.append('t1', artifactEvent('t1', 'a', ['two'], true));
    const working = statusEvent('t1', TaskState.TASK_STATE_WORKING, 'on it');
    await log.append('t1', working);
    await log.requestCancel('t1');
    const end = await log.roundEnd('t1');
    expect(end?.status).toEqual(working.kind === 'statusUpdate' ? working.data.status : undefined);
    expect(texts({ ...newTask(), artifacts: end?.artifacts ?? [] })).toEqual([['one', 'two'], ['bee']]);
    expect(end?.artifacts).toEqual((await log.load('t1'))?.task.artifacts);
    expect(end?.canceled).toBe(true);
  });

  it('leaves the task as it was when its stream cannot take the event', async () => {
    const redis = await connect();
    const log = createTaskLog({ redis, prefix: prefix() });
    await log.create(newTask(), 'p1');
    await redis.set(`${prefix()}:a2a:task:t1:events`, 'not a stream');
    await expect(log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'on it', { turnId: 'turn-1' }))).rejects.toThrow(/WRONGTYPE/);
    await expect(log.append('t1', artifactEvent('t1', 'a', ['one']))).rejects.toThrow(/WRONGTYPE/);
    const loaded = await log.load('t1');
    expect(loaded?.task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(loaded?.task.artifacts).toEqual([]);
    expect(loaded?.task.metadata).toEqual({ peerId: 'p1' });
    expect(loaded?.task.history.map((item) => item.messageId)).toEqual(['t1-m0']);
    expect(loaded?.lastEventId).toBeUndefined();
  });

  it('records a cancellation request', async () => {
    const log = await makeLog();
    await log.create(newTask(), 'p1');
    expect(await log.cancelRequested('t1')).toBe(false);
    expect(await log.requestCancel('t1')).toBe(true);
    expect(await log.cancelRequested('t1')).toBe(true);
  });

  it('reads several tasks’ streams at once, and waits for an entry when asked', async () => {
    const log = await makeLog();
    await log.create(newTask('t1'), 'p1');
    await log.create(newTask('t2'), 'p1');
    const a = await log.append('t1', statusEvent('t1', TaskState.TASK_STATE_WORKING, 'a'));
    const many = await log.readMany(new Map([['t1', '0'], ['t2', '0']]));
    expect([...many.keys()]).toEqual(['t1']);
    expect(many.get('t1')?.map((entry) => entry.id)).toEqual([a]);
    const reader = await connect();
    const waiting = log.read('t2', '0', { blockMs: 5000, redis: reader });
    const b = await log.append('t2', statusEvent('t2', TaskState.TASK_STATE_WORKING, 'b'));
    expect((await waiting).map((entry) => entry.id)).toEqual([b]);
  });
});
