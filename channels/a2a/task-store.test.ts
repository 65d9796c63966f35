import { peerContext } from './peer-route-fixtures.ts';
import { Role, TaskState, type Artifact, type Message, type Task } from '@a2a-js/sdk';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createTaskLog, type TaskLog } from './task-log.ts';
import { createRedisTaskStore, ownerOf } from './task-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const peer = peerContext;

function message(id: string, text: string, role: Role = Role.ROLE_USER): Message {
  return { messageId: id, taskId: 't1', contextId: 'c1', role, parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }], metadata: {}, extensions: [], referenceTaskIds: [] };
}

function task(state: TaskState, history: Message[]): Task {
  return { id: 't1', contextId: 'c1', status: { state, message: undefined, timestamp: '2026-01-01T00:00:00.000Z' }, artifacts: [], history, metadata: {} };
}

async function makeLog(): Promise<TaskLog> {
  return createTaskLog({ redis: await connect(), prefix: prefix() });
}

describe('createRedisTaskStore', () => {
  it('takes the owner from the authenticated user’s name', () => {
    expect(ownerOf(peer('p1'))).toBe('p1');
    expect(ownerOf(new ServerCallContext({ user: new UnauthenticatedUser() }))).toBeUndefined();
    expect(ownerOf(new ServerCallContext())).toBeUndefined();
  });

  it('saves a new task for the calling peer, which only that peer loads and lists', async () => {
    const log = await makeLog();
    const store = createRedisTaskStore(log);
    await store.save(task(TaskState.TASK_STATE_SUBMITTED, [message('m0', 'hi')]), peer('p1'));
    expect((await store.load('t1', peer('p1')))?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(await store.load('t1', peer('p2'))).toBeUndefined();
    expect(await store.load('t1', new ServerCallContext({ user: new UnauthenticatedUser() }))).toBeUndefined();
    const request = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };
    expect((await store.list(request, peer('p1'))).tasks.map((item) => item.id)).toEqual(['t1']);
    expect((await store.list(request, peer('p2'))).totalSize).toBe(0);
    expect((await store.list(request, new ServerCallContext())).tasks).toEqual([]);
  });

  it('never writes progress over an existing task: it only adds the history messages it lacks', async () => {
    const log = await makeLog();
    const store = createRedisTaskStore(log);
    await store.save(task(TaskState.TASK_STATE_SUBMITTED, [message('m0', 'hi')]), peer('p1'));
    await log.append('t1', { kind: 'statusUpdate', data: { taskId: 't1', contextId: 'c1', status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: message('a1', 'which one?', Role.ROLE_AGENT), timestamp: undefined }, metadata: undefined } });
    // A copy loaded before the worker's update, with the peer's follow-up appended (as the SDK does).
    const stale = task(TaskState.TASK_STATE_SUBMITTED, [message('m0', 'hi'), message('m1', 'the blue one')]);
    await store.save(stale, peer('p1'));
    const stored = await store.load('t1', peer('p1'));
    expect(stored?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stored?.history.map((item) => item.messageId)).toEqual(['m0', 'a1', 'm1']);
  });

  it('refuses to save for an unauthenticated caller or over another peer’s task', async () => {
    const store = createRedisTaskStore(await makeLog());
    await expect(store.save(task(TaskState.TASK_STATE_SUBMITTED, []), new ServerCallContext())).rejects.toMatchObject({ code: 'http.unauthorized' });
    await store.save(task(TaskState.TASK_STATE_SUBMITTED, []), peer('p1'));
    await expect(store.save(task(TaskState.TASK_STATE_FAILED, [message('x', 'mine now')]), peer('p2'))).rejects.toMatchObject({ code: 'http.not_found' });
    expect((await store.load('t1', peer('p1')))?.history).toEqual([]);
  });

  describe('within one call (what the SDK loads before each event it applies)', () => {
    /** The log, counting its loads. */
    function counting(log: TaskLog): { log: TaskLog; loads: () => number } {
      let loads = 0;
      return { log: { ...log, load: (taskId, owner) => { loads += 1; return log.load(taskId, owner); } }, loads: () => loads };
    }

    it('answers a call’s loads after its save from what it saved, as a copy; another call reads Redis', async () => {
      const { log, loads } = counting(await makeLog());
      const store = createRedisTaskStore(log);
      const call = peer('p1');
      const saved = task(TaskState.TASK_STATE_SUBMITTED, [message('m0', 'hi')]);
      await store.save(saved, call);
      const first = await store.load('t1', call);
      expect(first).toEqual(saved);
      expect(loads()).toBe(0);
      if (first?.status === undefined) throw new Error('no task');
      // The SDK changes what it loaded before it saves it: the next load is not changed with it.
      first.status.state = TaskState.TASK_STATE_WORKING;
      expect((await store.load('t1', call))?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
      await store.save(first, call);
      expect((await store.load('t1', call))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      expect(loads()).toBe(0);
      // Another call (another context) reads the stored task: the save wrote no progress.
      expect((await store.load('t1', peer('p1')))?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
      expect(loads()).toBe(1);
    });

    it('loads a copy the SDK can change as it does (status, history, metadata, artifacts in place) without changing what the call saved', async () => {
      const store = createRedisTaskStore(await makeLog());
      const call = peer('p1');
      const answer: Artifact = { artifactId: 'a1', name: 'answer', description: '', parts: [...message('x', 'Corfu').parts], metadata: { turnId: 'turn-1' }, extensions: [] };
      const saved: Task = { ...task(TaskState.TASK_STATE_WORKING, [message('m0', 'hi')]), artifacts: [answer], metadata: { peerId: 'p1' } };
      const before = structuredClone(saved);
      await store.save(saved, call);
      const loaded = await store.load('t1', call);
      if (loaded === undefined) throw new Error('no task');
      // What the SDK's result manager does to a task it loaded, before it saves it.
      loaded.status = { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined };
      loaded.history = [...loaded.history, message('m1', 'done', Role.ROLE_AGENT)];
      loaded.metadata = { ...loaded.metadata, extra: true };
      const [first] = loaded.artifacts;
      if (first === undefined) throw new Error('no artifact');
      first.parts = [...first.parts, ...message('y', ', Tuesday').parts];
      first.name = 'changed';
      first.metadata = { ...first.metadata, appended: true };
      loaded.artifacts.push({ ...answer, artifactId: 'a2' });
      loaded.artifacts[0] = { ...answer, artifactId: 'a1', name: 'replaced' };
      expect(saved).toEqual(before);
      expect(await store.load('t1', call)).toEqual(before);
    });

    it('answers the first load of a call from the task it created, and remembers nothing of a refused save', async () => {
      const raw = await makeLog();
      const { log, loads } = counting(raw);
      const store = createRedisTaskStore(log);
      const call = peer('p1');
      const fresh = task(TaskState.TASK_STATE_SUBMITTED, [message('m0', 'hi')]);
      await raw.create(fresh, 'p1');
      store.created(fresh, call);
      expect(await store.load('t1', call)).toEqual(fresh);
      expect(loads()).toBe(0);
      // Nothing for an unauthenticated call, nor for another peer's call whose save is refused.
      store.created(fresh, new ServerCallContext());
      const intruder = peer('p2');
      await expect(store.save(task(TaskState.TASK_STATE_FAILED, [message('x', 'mine now')]), intruder)).rejects.toMatchObject({ code: 'http.not_found' });
      expect(await store.load('t1', intruder)).toBeUndefined();
    });
  });

  describe('saving an existing task (what the SDK does after each event it relays)', () => {
    /** The log, recording what `createOrAddHistory` is sent. */
    function recording(log: TaskLog): { log: TaskLog; sent: Task[] } {
      const sent: Task[] = [];
      return {
        log: { ...log, createOrAddHistory: (saved, owner) => { sent.push(structuredClone(saved)); return log.createOrAddHistory(saved, owner); } },
        sent,
      };
    }

    const artifact = (id: string, text: string): Artifact =>
      ({ artifactId: id, name: '', description: '', parts: message('x', text).parts, metadata: {}, extensions: [] });

    /** A task created the way the worker does, by the log itself (not through this store). */
    async function created(log: TaskLog): Promise<void> {
      expect(await log.create(task(TaskState.TASK_STATE_SUBMITTED, [message('m0', 'hi')]), 'p1')).toBe(true);
    }

    it('creates a task that does not exist with all it has: history, agent messages and artifacts', async () => {
      const { log, sent } = recording(await makeLog());
      const store = createRedisTaskStore(log);
      const fresh = { ...task(TaskState.TASK_STATE_WORKING, [message('m0', 'hi'), message('a0', 'on it', Role.ROLE_AGENT)]), artifacts: [artifact('art1', 'a file')] };
      await store.save(fresh, peer('p1'));
      expect(sent).toEqual([fresh]);
      const stored = await store.load('t1', peer('p1'));
      expect(stored?.history.map((item) => item.messageId)).toEqual(['m0', 'a0']);
      expect(stored?.artifacts.map((item) => item.artifactId)).toEqual(['art1']);
    });

    it('makes no Redis call for a save that adds only agent messages, artifacts or a status', async () => {
      const raw = await makeLog();
      const { log, sent } = recording(raw);
      await created(raw);
      const store = createRedisTaskStore(log);
      // As the SDK's ResultManager does for a status or an artifact event: load, apply, save.
      const loaded = await store.load('t1', peer('p1'));
      if (loaded === undefined) throw new Error('no task');
      const agentReply = message('a1', 'which one?', Role.ROLE_AGENT);
      await store.save({ ...loaded, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: agentReply, timestamp: undefined }, history: [...loaded.history, agentReply], artifacts: [artifact('art1', 'a file')] }, peer('p1'));
      expect(sent).toEqual([]);
      // The stored task is the worker's business: unchanged by the save.
      const stored = await raw.load('t1', 'p1');
      expect(stored?.task.history.map((item) => item.messageId)).toEqual(['m0']);
      expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    });

    it('sends only the user message the stored task lacks, without agent messages or artifacts', async () => {
      const raw = await makeLog();
      const { log, sent } = recording(raw);
      await created(raw);
      await raw.append('t1', { kind: 'statusUpdate', data: { taskId: 't1', contextId: 'c1', status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: message('a1', 'which one?', Role.ROLE_AGENT), timestamp: undefined }, metadata: undefined } });
      await raw.append('t1', { kind: 'artifactUpdate', data: { taskId: 't1', contextId: 'c1', artifact: artifact('art1', 'a file'), append: false, lastChunk: true, metadata: undefined } });
      const store = createRedisTaskStore(log);
      // As the SDK does for a peer's follow-up on an existing task: load, add the message, save.
      const loaded = await store.load('t1', peer('p1'));
      if (loaded === undefined) throw new Error('no task');
      expect(loaded.artifacts).toHaveLength(1);
      await store.save({ ...loaded, history: [...loaded.history, message('m1', 'the blue one')] }, peer('p1'));
      expect(sent).toHaveLength(1);
      expect(sent[0]?.history.map((item) => item.messageId)).toEqual(['m1']);
      expect(sent[0]?.artifacts).toEqual([]);
      expect(sent[0]?.status?.message).toBeUndefined();
      const stored = await store.load('t1', peer('p1'));
      expect(stored?.history.map((item) => item.messageId)).toEqual(['m0', 'a1', 'm1']);
      expect(stored?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(stored?.artifacts.map((item) => item.artifactId)).toEqual(['art1']);
      // Saved again (the next event), the message is known to be stored: no call.
      await store.save({ ...loaded, history: [...loaded.history, message('m1', 'the blue one')] }, peer('p1'));
      expect(sent).toHaveLength(1);
    });
  });
});
