/**
 * The webhook reply for peers: `POST /api/turns` starts a task from `{ text, contextId?, taskId? }`
 * and answers its settled envelope in the response body (200) when the round ends within `?wait=`
 * seconds, else 202 with where to poll; `GET /api/turns/:taskId?wait=` is that poll. Both take a
 * peer's bearer token, checked before anything is read (401, 429, 413), and a peer sees only its
 * own tasks (404 for any other).
 */
import { randomUUID } from 'node:crypto';
import { TaskState, type Task } from '@a2a-js/sdk';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { sendJson, type HttpContext, type Route } from '../../src/runtime/http/router.ts';
import { readJsonObject } from '../../src/runtime/http/request-body.ts';
import { awaitRound, isRoundOver, type AwaitRoundDeps } from './await-task.ts';
import { admitPeer, MAX_PEER_BODY_BYTES, type PeerGate } from './inbound.ts';
import { MAX_PEER_TEXT_CHARS, type PeerTransport } from './normalise.ts';
import { bufferedAnswer, peerTextMessage, stateName, type PeerTurns } from './peer-turns.ts';
import type { CallingPeer } from './peer-user.ts';
import type { TaskLog } from './task-log.ts';

/** Default of `?wait=`, in seconds. */
export const DEFAULT_TURN_WAIT_SECONDS = 30;

/** Largest `?wait=`, in seconds. */
export const MAX_TURN_WAIT_SECONDS = 120;

/** Longest `contextId` or `taskId` a peer may give, in characters. */
export const MAX_PEER_ID_CHARS = 256;

/** A peer's text turn, as the buffered transports take it. */
export interface PeerTextTurn {
  readonly peer: CallingPeer;
  readonly text: string;
  /** The conversation; default the continued task's, else a new UUID. */
  readonly contextId?: string | undefined;
  /** Continues this `input-required` task of the same peer. */
  readonly taskId?: string | undefined;
  readonly transport: PeerTransport;
}

/** What {@link startPeerText} needs. */
export interface StartPeerTextDeps {
  readonly log: TaskLog;
  readonly turns: PeerTurns;
}

/**
 * Starts a task for a peer's text: a new one, or the peer's own `input-required` task `taskId`
 * (the text answers its question; the message joins its history).
 *
 * @throws SwitchboardError `http.bad_request` for empty text, text over {@link MAX_PEER_TEXT_CHARS},
 *   a task that is not waiting for the peer's answer, or a `contextId` that is not the task's;
 *   `http.not_found` for a task that is unknown or another peer's.
 */
export async function startPeerText(deps: StartPeerTextDeps, turn: PeerTextTurn): Promise<Task> {
  if (turn.text.trim() === '') throw new SwitchboardError('http.bad_request', '"text" must not be empty.', { details: { field: 'text' } });
  if (turn.text.length > MAX_PEER_TEXT_CHARS) {
    throw new SwitchboardError('http.bad_request', `"text" is over ${String(MAX_PEER_TEXT_CHARS)} characters.`, { details: { field: 'text', maxChars: MAX_PEER_TEXT_CHARS } });
  }
  const { peer } = turn;
  if (turn.taskId === undefined) {
    const taskId = randomUUID();
    const contextId = turn.contextId ?? randomUUID();
    return deps.turns.start({ peer, message: peerTextMessage(turn.text, { taskId, contextId }), taskId, contextId, transport: turn.transport });
  }
  const taskId = turn.taskId;
  const existing = (await deps.log.load(taskId, peer.id))?.task;
  if (existing === undefined) throw new SwitchboardError('http.not_found', `No task ${taskId} of this peer.`, { details: { taskId } });
  if (existing.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
    throw new SwitchboardError('http.bad_request', `Task ${taskId} is ${stateName(existing)}, not waiting for your answer; send a new message without "taskId".`, {
      details: { field: 'taskId', taskId, state: stateName(existing) },
    });
  }
  if (turn.contextId !== undefined && turn.contextId !== existing.contextId) {
    throw new SwitchboardError('http.bad_request', `Task ${taskId} belongs to context ${existing.contextId}, not ${turn.contextId}.`, { details: { field: 'contextId', taskId } });
  }
  const message = peerTextMessage(turn.text, { taskId, contextId: existing.contextId });
  await deps.log.appendHistory(taskId, message);
  return deps.turns.start({ peer, message, taskId, contextId: existing.contextId, transport: turn.transport, existing });
}

/** Options of {@link createTurnsRoutes}. */
export interface TurnsRoutesOptions {
  readonly gate: PeerGate;
  readonly log: TaskLog;
  readonly turns: PeerTurns;
  /** What waiting for a round reads (the log and the command connection). */
  readonly round: AwaitRoundDeps;
  /** `PUBLIC_URL`, for the poll links. */
  readonly publicUrl: string;
}

const BODY_FIELDS = new Set(['text', 'contextId', 'taskId']);

/**
 * The optional `contextId` or `taskId` a peer gave (a body or tool arguments).
 *
 * @throws SwitchboardError `http.bad_request` for anything but a non-empty string of at most {@link MAX_PEER_ID_CHARS}.
 */
export function optionalId(body: Record<string, unknown>, field: 'contextId' | 'taskId'): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_PEER_ID_CHARS) {
    throw new SwitchboardError('http.bad_request', `"${field}" must be a non-empty string of at most ${String(MAX_PEER_ID_CHARS)} characters.`, { details: { field } });
  }
  return value;
}

/** The body of `POST /api/turns`, checked. */
function turnBody(body: Record<string, unknown>): { text: string; contextId: string | undefined; taskId: string | undefined } {
  const unknown = Object.keys(body).filter((key) => !BODY_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new SwitchboardError('http.bad_request', `Unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((key) => `"${key}"`).join(', ')}; the body is { "text": "...", "contextId"?: "...", "taskId"?: "..." }.`, {
      details: { fields: unknown },
    });
  }
  const text = body['text'];
  if (typeof text !== 'string') throw new SwitchboardError('http.bad_request', '"text" is required and must be a string.', { details: { field: 'text' } });
  return { text, contextId: optionalId(body, 'contextId'), taskId: optionalId(body, 'taskId') };
}

/**
 * `?wait=` in milliseconds: whole or decimal seconds from 0 to {@link MAX_TURN_WAIT_SECONDS},
 * default {@link DEFAULT_TURN_WAIT_SECONDS}.
 *
 * @throws SwitchboardError `http.bad_request` for anything else.
 */
export function waitMsOf(url: URL): number {
  const given = url.searchParams.get('wait');
  if (given === null || given === '') return DEFAULT_TURN_WAIT_SECONDS * 1000;
  const seconds = /^\d+(\.\d+)?$/.test(given) ? Number(given) : Number.NaN;
  if (!(seconds <= MAX_TURN_WAIT_SECONDS)) {
    throw new SwitchboardError('http.bad_request', `"wait" must be a number of seconds from 0 to ${String(MAX_TURN_WAIT_SECONDS)}.`, { details: { field: 'wait' } });
  }
  return Math.round(seconds * 1000);
}

/** The link where a task is polled. */
export function pollUrl(publicUrl: string, taskId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/turns/${encodeURIComponent(taskId)}`;
}

/** Waits for the round, then answers 200 with the buffered envelope or 202 with where to poll. */
async function answerRound(options: TurnsRoutesOptions, context: HttpContext, task: Task, waitMs: number): Promise<void> {
  const { res } = context;
  const gone = new AbortController();
  const onClose = (): void => {
    gone.abort();
  };
  res.once('close', onClose);
  // A caller that went away while its task was being started closed before the listener.
  if (res.destroyed) gone.abort();
  let settled: Task;
  try {
    settled = isRoundOver(task) || waitMs === 0 ? task : await awaitRound(options.round, task.id, waitMs, gone.signal);
  } finally {
    res.off('close', onClose);
  }
  if (res.destroyed || res.writableEnded) return;
  if (isRoundOver(settled)) {
    sendJson(res, 200, bufferedAnswer(settled));
    return;
  }
  const poll = pollUrl(options.publicUrl, settled.id);
  res.setHeader('location', poll);
  sendJson(res, 202, { taskId: settled.id, contextId: settled.contextId, state: stateName(settled), poll });
}

/**
 * The routes of the webhook reply.
 *
 * @example
 * routes.push(...createTurnsRoutes({ gate, log, turns, round: { log, redis }, publicUrl: env.publicUrl }));
 */
export function createTurnsRoutes(options: TurnsRoutesOptions): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/api/turns',
      handler: async (context) => {
        const peer = await admitPeer(options.gate, context);
        if (peer === undefined) return;
        const waitMs = waitMsOf(context.url);
        const body = turnBody(await readJsonObject(context.req, MAX_PEER_BODY_BYTES));
        const task = await startPeerText(options, { peer, ...body, transport: 'webhook' });
        await answerRound(options, context, task, waitMs);
      },
    },
    {
      method: 'GET',
      pattern: '/api/turns/:taskId',
      handler: async (context) => {
        const peer = await admitPeer(options.gate, context);
        if (peer === undefined) return;
        const waitMs = waitMsOf(context.url);
        const taskId = context.params['taskId'] ?? '';
        const stored = await options.log.load(taskId, peer.id);
        if (stored === undefined) throw new SwitchboardError('http.not_found', `No task ${taskId} of this peer.`, { details: { taskId } });
        await answerRound(options, context, stored.task, waitMs);
      },
    },
  ];
}
