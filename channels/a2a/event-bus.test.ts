import { peerContext } from './peer-route-fixtures.ts';
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, type AgentExecutionEvent, type AgentExecutor, type ExecutionEventBus, type TaskStore } from '@a2a-js/sdk/server';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import { createRedisEventBusManager, type RedisEventBusManager, type RedisEventBusManagerOptions } from './event-bus.ts';
import { createTaskLog, type TaskLog, type TaskLogEvent } from './task-log.ts';
import { createRedisTaskStore } from './task-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const managers: RedisEventBusManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

/** One "process": its own command connection, log and manager. */
interface Process {
  readonly redis: Redis;
  readonly log: TaskLog;
  readonly buses: RedisEventBusManager;
  readonly errors: Error[];
}

async function process(options: Partial<RedisEventBusManagerOptions> = {}): Promise<Process> {
  const redis = await connect();
  const log = createTaskLog({ redis, prefix: prefix() });
  const errors: Error[] = [];
  const buses = createRedisEventBusManager({ redis, log, onError: (error) => errors.push(error), ...options });
  managers.push(buses);
  return { redis, log, buses, errors };
}

function message(id: string, text: string, taskId = 't1', role: Role = Role.ROLE_AGENT): Message {
  return { messageId: id, taskId, contextId: 'c1', role, parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }], metadata: {}, extensions: [], referenceTaskIds: [] };
}

function newTask(id = 't1'): Task {
  return { id, contextId: 'c1', status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [], metadata: {} };
}

function status(taskId: string, state: TaskState, words: string): TaskLogEvent {
  return { kind: 'statusUpdate', data: { taskId, contextId: 'c1', status: { state, message: message(`${taskId}-${words}`, words, taskId), timestamp: new Date().toISOString() }, metadata: {} } };
}

/** What a bus delivered: 'task' or the status words. */
function listen(bus: ExecutionEventBus): { seen: string[]; finished: () => boolean } {
  const seen: string[] = [];
  let finished = false;
  bus.on('event', (event: AgentExecutionEvent) => {
    if (event.kind === 'statusUpdate') {
      const part = event.data.status?.message?.parts[0]?.content;
      seen.push(part?.$case === 'text' ? part.value : '?');
    } else {
      seen.push(event.kind);
    }
  });
  bus.on('finished', () => {
    finished = true;
  });
  return { seen, finished: () => finished };
}

const peer = peerContext;

describe('createRedisEventBusManager', () => {
  it('delivers the events a worker appends to a bus of another process', async () => {
    const worker = await process();
    const web = await process();
    await worker.log.create(newTask(), 'p1');
    const bus = listen(web.buses.getByTaskId('t1'));
    await worker.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'working'));
    await worker.log.append('t1', { kind: 'artifactUpdate', data: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a', name: '', description: '', parts: [], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined } });
    await waitFor(() => bus.seen.length === 2, 'both events arrived');
    expect(bus.seen).toEqual(['working', 'artifactUpdate']);
    expect(web.errors).toEqual([]);
  });

  it('starts a bus at the snapshot’s last event, so events before it are not delivered again', async () => {
    const web = await process();
    await web.log.create(newTask(), 'p1');
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'one'));
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'two'));
    const bus = listen(web.buses.getByTaskId('t1'));
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'three'));
    await waitFor(() => bus.seen.length > 0, 'an event arrived');
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_INPUT_REQUIRED, 'four'));
    await waitFor(() => bus.seen.length > 1, 'the next event arrived');
    expect(bus.seen).toEqual(['three', 'four']);
  });

  it('finishes and forgets a bus once it delivered a terminal state', async () => {
    const web = await process();
    await web.log.create(newTask(), 'p1');
    const bus = listen(web.buses.getByTaskId('t1'));
    expect(web.buses.size).toBe(1);
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_COMPLETED, 'done'));
    await waitFor(bus.finished, 'the bus finished');
    expect(bus.seen).toEqual(['done']);
    expect(web.buses.size).toBe(0);
  });

  it('holds the stream back on the executor’s bus until its Task is published, then settles from the stream', async () => {
    const web = await process();
    const raw = web.buses.createOrGetByTaskId('t1');
    const bus = listen(raw);
    await web.log.create(newTask(), 'p1');
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'early'));
    // The read of the early event has happened once a later bus of another task got its own.
    const probe = listen(web.buses.getByTaskId('t2'));
    await web.log.create(newTask('t2'), 'p1');
    await web.log.append('t2', status('t2', TaskState.TASK_STATE_WORKING, 'probe'));
    await waitFor(() => probe.seen.length === 1, 'the probe event arrived');
    expect(bus.seen).toEqual([]);
    raw.publish(AgentEvent.task(newTask()));
    expect(bus.seen).toEqual(['task', 'early']);
    expect(web.buses.settleByTaskId('t1', raw, TaskState.TASK_STATE_WORKING)).toBe(true);
    expect(bus.finished()).toBe(false);
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_FAILED, 'failed'));
    await waitFor(bus.finished, 'the bus finished');
    expect(bus.seen).toEqual(['task', 'early', 'failed']);
  });

  it('picks up a new task at once while the reader is blocked on others', async () => {
    const web = await process({ blockMs: 60_000 });
    await web.log.create(newTask('t1'), 'p1');
    await web.log.create(newTask('t2'), 'p1');
    const first = listen(web.buses.getByTaskId('t1'));
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'a'));
    await waitFor(() => first.seen.length === 1, 'the first task’s event arrived');
    // The reader now blocks for up to a minute on t1 alone; t2 joining must interrupt it.
    const second = listen(web.buses.getByTaskId('t2'));
    await waitFor(() => web.buses.size === 2, 'two buses');
    await web.log.append('t2', status('t2', TaskState.TASK_STATE_WORKING, 'b'));
    await waitFor(() => second.seen.length === 1, 'the second task’s event arrived', 5_000);
  });

  it('picks up a task that joined while the reader was still connecting', async () => {
    const redis = await connect();
    // The reader's CLIENT ID waits until the test lets it go: a second task joins meanwhile.
    let asked: () => void = () => undefined;
    const idAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const duplicate = redis.duplicate.bind(redis);
    redis.duplicate = (...args: Parameters<Redis['duplicate']>) => {
      const connection = duplicate(...args);
      const call = connection.call.bind(connection) as (command: string, args: unknown[]) => Promise<unknown>;
      (connection as unknown as { call: (command: string, args: unknown[]) => Promise<unknown> }).call = async (command, rest) => {
        if (command === 'CLIENT' && rest[0] === 'ID') {
          asked();
          await released;
        }
        return call(command, rest);
      };
      return connection;
    };
    const log = createTaskLog({ redis, prefix: prefix() });
    const buses = createRedisEventBusManager({ redis, log, blockMs: 60_000 });
    managers.push(buses);
    await log.create(newTask('t1'), 'p1');
    await log.create(newTask('t2'), 'p1');
    listen(buses.getByTaskId('t1'));
    await idAsked;
    const second = listen(buses.getByTaskId('t2'));
    // Its start position is read (the same connection answers in order).
    await redis.ping();
    release();
    await log.append('t2', status('t2', TaskState.TASK_STATE_WORKING, 'b'));
    await waitFor(() => second.seen.length === 1, 'the second task’s event arrived', 5_000);
  });

  it('finishes a bus nobody listens to after the idle bound, and resumes a bus whose listener came back', async () => {
    const web = await process({ idleMs: 50 });
    await web.log.create(newTask(), 'p1');
    const raw = web.buses.getByTaskId('t1');
    let finished = false;
    raw.on('finished', () => {
      finished = true;
    });
    await waitFor(() => finished && web.buses.size === 0, 'the idle bus finished');

    const again = web.buses.getByTaskId('t1');
    const listener = (): void => undefined;
    again.on('event', listener);
    again.off('event', listener);
    const bus = listen(again);
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'back'));
    await waitFor(() => bus.seen.length === 1, 'the event arrived');
    expect(bus.finished()).toBe(false);
  });

  it('closes its reader connection and forgets every bus', async () => {
    const observer = await connect();
    const clients = async (): Promise<number> => String(await observer.call('CLIENT', ['LIST'])).trim().split('\n').length;
    const before = await clients();
    const web = await process();
    await web.log.create(newTask(), 'p1');
    const bus = listen(web.buses.getByTaskId('t1'));
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'x'));
    await waitFor(() => bus.seen.length === 1, 'the event arrived');
    expect(await clients()).toBe(before + 2);
    await web.buses.close();
    expect(web.buses.size).toBe(0);
    await waitFor(async () => (await clients()) === before + 1, 'the reader connection closed');
  });

  it('ends a CancelTask whose task settled between its load and the bus start, instead of waiting for ever', async () => {
    const web = await process();
    const worker = await process();
    await web.log.create(newTask(), 'p1');
    await web.log.append('t1', status('t1', TaskState.TASK_STATE_WORKING, 'working'));
    const store = createRedisTaskStore(web.log);
    let settled = false;
    // The SDK loads the task (working), then gets the bus: the worker completes it in between.
    const racing: TaskStore = {
      ...store,
      async load(taskId, context) {
        const task = await store.load(taskId, context);
        if (!settled) {
          settled = true;
          await worker.log.append('t1', status('t1', TaskState.TASK_STATE_COMPLETED, 'done'));
        }
        return task;
      },
    };
    const card = { name: 'test', capabilities: { streaming: true, pushNotifications: false, extensions: [] } } as unknown as AgentCard;
    const executor: AgentExecutor = { execute: () => Promise.resolve(), cancelTask: () => Promise.resolve() };
    const handler = new DefaultRequestHandler(card, racing, executor, web.buses);
    const outcome = await Promise.race([
      handler.cancelTask({ tenant: '', id: 't1', metadata: undefined }, peer('p1')).then(
        () => 'canceled',
        (error: unknown) => (error instanceof Error ? error.name : String(error)),
      ),
      new Promise<string>((resolve) => setTimeout(() => { resolve('still waiting'); }, 3_000)),
    ]);
    // Not cancelable: it completed. What matters is that it answers at all.
    expect(outcome).toBe('TaskNotCancelableError');
    await waitFor(() => web.buses.size === 0, 'the bus settled');
  });

  it('serves a blocking SendMessage on one process and a SubscribeToTask on another', async () => {
    const worker = await process();
    const first = await process();
    const second = await process();
    const card = { name: 'test', capabilities: { streaming: true, pushNotifications: false, extensions: [] } } as unknown as AgentCard;
    const resubscribed: string[] = [];
    let subscription: Promise<void> | undefined;
    const executor: AgentExecutor = {
      async execute(request, bus) {
        const task = { ...newTask(request.taskId), history: [request.userMessage] };
        await first.log.create(task, 'p1');
        bus.publish(AgentEvent.task(task));
        // The "worker": the turn's events, while a peer subscribes on the second process.
        await worker.log.append(request.taskId, status(request.taskId, TaskState.TASK_STATE_WORKING, 'working'));
        const secondHandler = new DefaultRequestHandler(card, createRedisTaskStore(second.log), executor, second.buses);
        subscription = (async () => {
          for await (const response of secondHandler.resubscribe({ tenant: '', id: request.taskId }, peer('p1'))) resubscribed.push(response.payload?.$case ?? '?');
        })();
        await waitFor(() => resubscribed.length > 0, 'the subscriber got the task');
        await worker.log.append(request.taskId, status(request.taskId, TaskState.TASK_STATE_COMPLETED, 'done'));
      },
      cancelTask: () => Promise.resolve(),
    };
    const handler = new DefaultRequestHandler(card, createRedisTaskStore(first.log), executor, first.buses);
    const result = await handler.sendMessage({ tenant: '', message: message('m1', 'hello', '', Role.ROLE_USER), configuration: undefined, metadata: undefined }, peer('p1'));
    expect('status' in result ? result.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
    await subscription;
    expect(resubscribed).toEqual(['task', 'statusUpdate']);
    await waitFor(() => first.buses.size === 0 && second.buses.size === 0, 'every bus settled');
    const stored = await first.log.load('id' in result ? result.id : '', 'p1');
    expect(stored?.task.history.map((item) => item.messageId)).toEqual(['m1', `${stored?.task.id ?? ''}-working`, `${stored?.task.id ?? ''}-done`]);
  });
});
