/**
 * Shared fixtures of the buffered peer route tests (not a test file itself): a gate over fixed
 * tokens, a peer-turns whose enqueue the test reads, the routes on a real loopback HTTP server,
 * and the worker's side (appending status events to a task, as the `a2a` sender does).
 */
import { ServerCallContext } from '@a2a-js/sdk/server';
import { PeerUser } from './peer-user.ts';
import { createServer } from 'node:http';
import { TaskState } from '@a2a-js/sdk';
import type { Redis } from 'ioredis';
import type { Part } from '../../src/protocol/parts/part.ts';
import { createRouter, type Route } from '../../src/runtime/http/router.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { listenOnLoopback, type ListeningServer } from '../../test/support/loopback-server.ts';
import type { AwaitRoundDeps } from './await-task.ts';
import type { PeerGate } from './inbound.ts';
import { createPeerMessages } from './peer-messages.ts';
import { createPeerTurns, type PeerTurns } from './peer-turns.ts';
import type { CallingPeer } from './peer-user.ts';
import { agentMessage } from './render.ts';
import { createTaskLog, type TaskLog } from './task-log.ts';

/** The known peers by bearer token. */
export const PEERS: Readonly<Record<string, CallingPeer>> = {
  'token-alpha': { id: 'alpha', name: 'Alpha' },
  'token-beta': { id: 'beta', name: 'Beta', actor: 'billing' },
  'token-busy': { id: 'busy', name: 'Busy' },
};

/** A gate over {@link PEERS}; peer `busy` is always over its rate (7 s left). */
export const testGate: PeerGate = {
  authenticate: (header) => PEERS[/^Bearer (\S+)$/i.exec(header ?? '')?.[1] ?? ''],
  retryAfterSeconds: (peerId) => Promise.resolve(peerId === 'busy' ? 7 : undefined),
};

/** Injections in the order they were enqueued; `next()` waits for the next one. */
export interface InjectionQueue {
  push(injection: Injection): void;
  next(): Promise<Injection>;
  readonly count: number;
}

function injectionQueue(): InjectionQueue {
  const items: Injection[] = [];
  const waiters: ((injection: Injection) => void)[] = [];
  let count = 0;
  return {
    push(injection) {
      count += 1;
      const waiter = waiters.shift();
      if (waiter === undefined) items.push(injection);
      else waiter(injection);
    },
    next() {
      const item = items.shift();
      return item === undefined ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve(item);
    },
    get count() {
      return count;
    },
  };
}

/** What the route tests work with. */
export interface PeerRouteHarness {
  readonly log: TaskLog;
  readonly turns: PeerTurns;
  readonly round: AwaitRoundDeps;
  readonly injections: InjectionQueue;
  readonly server: ListeningServer;
  /** How many requests the routes are handling now. */
  readonly inFlight: () => number;
  /** How many responses have closed (answered, or their client went away). */
  readonly closed: () => number;
}

/** Options of {@link startPeerRoutes}. */
export interface PeerRouteOptions {
  /** The enqueue resolves (after the injection is in the queue) once this does. Default at once. */
  readonly enqueued?: Promise<void>;
}

/** Starts `routes` (given the log, turns and round deps) on a loopback server. The caller closes `server`. */
export async function startPeerRoutes(
  redis: Redis,
  prefix: string,
  routes: (deps: { log: TaskLog; turns: PeerTurns; round: AwaitRoundDeps }) => Route[],
  options: PeerRouteOptions = {},
): Promise<PeerRouteHarness> {
  const log = createTaskLog({ redis, prefix });
  const injections = injectionQueue();
  const turns = createPeerTurns({
    log,
    tenantId: 'tenant-1',
    messages: createPeerMessages({ redis, prefix }),
    enqueue: async (injection) => {
      injections.push(injection);
      await options.enqueued;
      return { duplicate: false };
    },
    clock: () => new Date(),
  });
  const round = { log, redis };
  let inFlight = 0;
  let closed = 0;
  const counted = routes({ log, turns, round }).map((route): Route => ({
    ...route,
    handler: async (context) => {
      inFlight += 1;
      context.res.once('close', () => {
        closed += 1;
      });
      try {
        await route.handler(context);
      } finally {
        inFlight -= 1;
      }
    },
  }));
  const server = await listenOnLoopback(createServer(createRouter(counted)));
  return { log, turns, round, injections, server, inFlight: () => inFlight, closed: () => closed };
}

/** Where an injection's answer goes. */
export function taskOfInjection(injection: Injection): { taskId: string; contextId: string } {
  return { taskId: injection.replyTo.thread?.['taskId'] ?? '', contextId: injection.replyTo.address };
}

/** Appends a status to the task, as the worker's sender does. */
export async function appendStatus(log: TaskLog, where: { taskId: string; contextId: string }, state: TaskState, parts: readonly Part[] = []): Promise<void> {
  const message = parts.length === 0 ? undefined : agentMessage(`${where.taskId}.${String(state)}.${String(Math.random())}`, where, parts, { turnId: 'turn-1' });
  await log.append(where.taskId, { kind: 'statusUpdate', data: { ...where, status: { state, message, timestamp: new Date().toISOString() }, metadata: {} } });
}

/** Works on the task, then ends its round in `state` with `parts` as its envelope. */
export async function answerTask(log: TaskLog, injection: Injection, parts: readonly Part[], state: TaskState = TaskState.TASK_STATE_COMPLETED): Promise<void> {
  const where = taskOfInjection(injection);
  await appendStatus(log, where, TaskState.TASK_STATE_WORKING);
  await appendStatus(log, where, state, parts);
}

/** A text part of `partType`. */
export function textPart(text: string, partType = 'response'): Part {
  return { text, metadata: { partType } };
}

/** The server call context of an authenticated peer `id`, as the A2A routes make it. */
export function peerContext(id: string): ServerCallContext {
  return new ServerCallContext({ user: new PeerUser({ id, name: id, actor: 'main' }, 'jsonrpc') });
}
