import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createPeerMessages, type PeerMessages } from './peer-messages.ts';
import { createPeerTurns, peerTextMessage, type PeerRequest } from './peer-turns.ts';
import { createTaskLog, type TaskLog } from './task-log.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const PEER = { id: 'caller', name: 'Caller' };

function request(taskId: string, messageId: string): PeerRequest {
  const where = { taskId, contextId: 'ctx-1' };
  return { peer: PEER, message: peerTextMessage('Any flights to Corfu?', where, messageId), ...where, transport: 'jsonrpc' };
}

/** Peer turns on a real task log and message record; `enqueue` answers as the session store would. */
async function turnsWith(enqueue: (injection: Injection, record: PeerMessages) => Promise<{ duplicate: boolean }>, messages?: PeerMessages) {
  const redis = await connect();
  const log: TaskLog = createTaskLog({ redis, prefix: prefix() });
  const record = messages ?? createPeerMessages({ redis, prefix: prefix() });
  const turns = createPeerTurns({ log, tenantId: 'default', clock: () => new Date(), messages: record, enqueue: (injection) => enqueue(injection, record) });
  return { turns, log, record };
}

describe('peer turns', () => {
  it('records the message\'s task ahead of its enqueue, and rejects a repeat naming that task', async () => {
    const seen = new Set<string>();
    const { turns, log, record } = await turnsWith(async (injection, messages) => {
      // What the record held when the enqueue ran: the first task, already.
      expect(await messages.firstTask(PEER.id, 'm-1', 'probe')).toBe('task-a');
      const duplicate = seen.has(injection.id);
      seen.add(injection.id);
      return { duplicate };
    });
    await turns.start(request('task-a', 'm-1'));
    await turns.start(request('task-b', 'm-1'));
    expect(await record.firstTask(PEER.id, 'm-1', 'other')).toBe('task-a');
    const second = await log.load('task-b');
    expect(second?.task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(JSON.stringify(second?.task.status?.message)).toContain('as task task-a');
  });

  it('records the task the enqueue took when the record could not be read beside it', async () => {
    const redis = await connect();
    const real = createPeerMessages({ redis, prefix: prefix() });
    const unreadable: PeerMessages = { firstTask: () => Promise.reject(new Error('READONLY')), claim: (peerId, messageId, taskId) => real.claim(peerId, messageId, taskId) };
    const { turns, log } = await turnsWith(() => Promise.resolve({ duplicate: false }), unreadable);
    await turns.start(request('task-c', 'm-2'));
    expect(await real.firstTask(PEER.id, 'm-2', 'other')).toBe('task-c');
    expect((await log.load('task-c'))?.task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
  });

  it('names the first task in a repeat\'s refusal from the record read beside the enqueue, and reads it again only when that read failed', async () => {
    const redis = await connect();
    const real = createPeerMessages({ redis, prefix: prefix() });
    await real.firstTask(PEER.id, 'm-4', 'task-first');
    let reads = 0;
    let failNext = false;
    const counted: PeerMessages = {
      firstTask: (peerId, messageId, taskId) => {
        reads += 1;
        if (!failNext) return real.firstTask(peerId, messageId, taskId);
        failNext = false;
        return Promise.reject(new Error('READONLY'));
      },
      claim: (peerId, messageId, taskId) => real.claim(peerId, messageId, taskId),
    };
    const { turns, log } = await turnsWith(() => Promise.resolve({ duplicate: true }), counted);
    await turns.start(request('task-e', 'm-4'));
    expect(reads).toBe(1);
    failNext = true;
    await turns.start(request('task-f', 'm-4'));
    expect(reads).toBe(3);
    for (const id of ['task-e', 'task-f']) {
      const refused = await log.load(id);
      expect(refused?.task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      expect(JSON.stringify(refused?.task.status?.message)).toContain('as task task-first');
    }
  });

  it('fails the stored task and rejects when the message cannot be enqueued', async () => {
    const { turns, log } = await turnsWith(() => Promise.reject(new Error('Connection is closed.')));
    await expect(turns.start(request('task-d', 'm-3'))).rejects.toThrow('Connection is closed.');
    const task = await log.load('task-d');
    expect(task?.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(task?.task.status?.message)).toContain('could not be queued');
  });
});
