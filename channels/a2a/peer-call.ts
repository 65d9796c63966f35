/**
 * One call to a peer agent over A2A with the SDK's client: the peer's Agent Card is read, the
 * message is streamed (the SDK sends it blocking when the card says the peer does not stream), the
 * peer's progress is passed on, and the call ends when the task settles or needs input. A task
 * still open when the answer ended is followed over the peer's stream again (SubscribeToTask) when
 * it streams, else by reading it every `pollIntervalMs`. Every
 * request carries the call's budget as its abort signal, and every request but the Agent Card's
 * (which is public) carries `Authorization: Bearer <token>`. The token is pinned to the origin of
 * the configured `url`: a card that names an endpoint elsewhere fails the call, and nothing is sent
 * there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Role, TaskState, type Artifact, type Message, type Part as A2aPart, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { retryAfterMsFromHeader } from '../../queues/delivery-error.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { messageText } from './a2a-parts.ts';

/** Why a call to a peer failed, in `SwitchboardError.details.reason` (code `peer.failed`). */
export type PeerFailureReason = 'timeout' | 'unauthorized' | 'unreachable' | 'busy' | 'failed' | 'rejected' | 'canceled' | 'protocol';

/** The peer being called. */
export interface PeerEndpoint {
  readonly id: string;
  readonly name: string;
  /** Base URL; the Agent Card is at `<url>/.well-known/agent-card.json`. */
  readonly url: string;
  /** The bearer token we present. A secret: never logged or thrown. */
  readonly token: string;
}

/** How the client reaches peers. */
export interface PeerClientOptions {
  /** The fetch every request goes through. Default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * How often a task the peer has not settled when its answer ended (a blocking answer in
   * `auth-required`, a dropped stream) is read again, in ms. Default 1000. A read the peer answers
   * with 429 waits its `Retry-After` instead (at most the call's budget).
   */
  readonly pollIntervalMs?: number;
}

/** What one message to the peer carries. */
export interface PeerRequest {
  readonly messageId: string;
  readonly text: string;
  /** The peer's context to continue; empty: the peer starts one. */
  readonly contextId: string;
  /** The peer's task to continue (one waiting for input); empty: a new task. */
  readonly taskId: string;
}

/** How the peer's task ended (or paused) for this call. */
export interface PeerOutcome {
  readonly state: 'completed' | 'input-required';
  readonly contextId: string;
  readonly taskId: string;
  /** The answer's parts: the task's artifacts, then the final status message's parts not already among them. */
  readonly parts: readonly A2aPart[];
}

/** Task states after which the call ends. */
const ENDED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
]);

/** What the call has seen of the peer's task so far. */
interface TaskSoFar {
  taskId: string;
  contextId: string;
  state: TaskState;
  statusMessage: Message | undefined;
  readonly artifacts: Map<string, Artifact>;
}

function failure(peer: PeerEndpoint, reason: PeerFailureReason, message: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError('peer.failed', message, { details: { peer: peer.id, reason }, cause, retryable: reason === 'timeout' || reason === 'unreachable' || reason === 'busy' });
}

/** Longest text of the peer's (an error it answered with) put in a failure's message, in characters. */
const MAX_PEER_DETAIL_CHARS = 300;

function cut(text: string): string {
  return text.length <= MAX_PEER_DETAIL_CHARS ? text : `${text.slice(0, MAX_PEER_DETAIL_CHARS)}…`;
}

/** Longest wait a `Retry-After` may ask for, in ms (what a timer can wait). */
const MAX_RETRY_AFTER_MS = 2_147_483_647;

/** The peer answered 429: it asked us to wait `retryAfterMs` (undefined: it did not say). */
class PeerBusy extends Error {
  readonly retryAfterMs: number | undefined;

  constructor(retryAfterMs: number | undefined) {
    super('The peer answered HTTP 429 (too many requests).');
    this.name = 'PeerBusy';
    this.retryAfterMs = retryAfterMs;
  }
}

/** A `Retry-After` header in ms, at most {@link MAX_RETRY_AFTER_MS}; `undefined` when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  const ms = retryAfterMsFromHeader(header);
  return ms === undefined ? undefined : Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** The origin `input` is sent to; `undefined` when it is no URL. */
function originOf(input: string | URL | Request): string | undefined {
  try {
    return new URL(input instanceof Request ? input.url : input).origin;
  } catch {
    return undefined;
  }
}

/**
 * A fetch for `peer`'s requests: it refuses any request to another origin than `origin` (the
 * configured url's) before sending it, presents the token when `withToken` (turning a refusal of
 * it into a clear failure), and turns a 429 into {@link PeerBusy}. With `signal`, every request is
 * also cut by it (the card resolver passes no signal of its own).
 */
function peerFetch(peer: PeerEndpoint, origin: string, base: typeof fetch, withToken: boolean, signal?: AbortSignal): typeof fetch {
  return async (input, init) => {
    const target = originOf(input);
    if (target !== origin) {
      throw failure(
        peer,
        'protocol',
        `The peer agent "${peer.name}" names ${target === undefined ? 'an unreadable address' : cut(target)} as its endpoint, but peer "${peer.id}" is configured at ${origin}; ` +
          'the call was refused, so our token is not sent anywhere else.',
      );
    }
    const headers = new Headers(init?.headers);
    if (withToken) headers.set('authorization', `Bearer ${peer.token}`);
    const signals = [init?.signal, signal].filter((one): one is AbortSignal => one !== undefined && one !== null);
    const response = await base(input, { ...init, headers, ...(signals.length === 0 ? {} : { signal: AbortSignal.any(signals) }) });
    if (withToken && (response.status === 401 || response.status === 403)) {
      await response.body?.cancel();
      throw failure(peer, 'unauthorized', `The peer agent "${peer.name}" refused our token (HTTP ${String(response.status)}): the token configured for peer "${peer.id}" is not the one it expects.`);
    }
    if (response.status === 429) {
      await response.body?.cancel();
      throw new PeerBusy(retryAfterMs(response.headers.get('retry-after')));
    }
    return response;
  };
}

/**
 * A client for `peer` whose every request goes to the origin of `peer.url` only, authenticated
 * except the Agent Card's. Reading the Agent Card is cut by `signal`; the calls made with the client
 * pass their own.
 */
async function connect(peer: PeerEndpoint, options: PeerClientOptions, signal: AbortSignal): Promise<Client> {
  const base = options.fetch ?? fetch;
  const origin = new URL(peer.url).origin;
  const fetchImpl = peerFetch(peer, origin, base, true);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the SDK types its options as classes it does not export; its own docs pass plain objects
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: peerFetch(peer, origin, base, false, signal) }),
    }),
  );
  return factory.createFromUrl(peer.url);
}

function userMessage(request: PeerRequest): Message {
  return {
    messageId: request.messageId,
    contextId: request.contextId,
    taskId: request.taskId,
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: request.text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function takeTask(seen: TaskSoFar, task: Task): void {
  seen.taskId = task.id;
  seen.contextId = task.contextId;
  seen.state = task.status?.state ?? seen.state;
  seen.statusMessage = task.status?.message;
  seen.artifacts.clear();
  for (const artifact of task.artifacts) seen.artifacts.set(artifact.artifactId, artifact);
}

function takeArtifact(seen: TaskSoFar, artifact: Artifact, append: boolean): void {
  const before = seen.artifacts.get(artifact.artifactId);
  seen.artifacts.set(artifact.artifactId, append && before !== undefined ? { ...before, parts: [...before.parts, ...artifact.parts] } : artifact);
}

/** What the peer says while it works: its status messages, and a note while a person must approve. */
function progressOf(state: TaskState, message: Message | undefined): string | undefined {
  const text = message === undefined ? '' : messageText(message.parts).trim();
  if (state === TaskState.TASK_STATE_AUTH_REQUIRED) return `Waiting for a person's approval on the peer's side.${text === '' ? '' : ` ${text}`}`;
  if (state === TaskState.TASK_STATE_WORKING || state === TaskState.TASK_STATE_SUBMITTED) return text === '' ? undefined : text;
  return undefined;
}

/** Takes one streamed event into `seen`, passing progress on; `true` for a direct answer (a message), which ends the stream. */
async function takeEvent(seen: TaskSoFar, event: StreamResponse, onProgress: (text: string) => Promise<void>): Promise<boolean> {
  const payload = event.payload;
  switch (payload?.$case) {
    case undefined:
      return false;
    case 'message':
      // A direct answer without a task.
      seen.contextId = payload.value.contextId || seen.contextId;
      seen.state = TaskState.TASK_STATE_COMPLETED;
      seen.statusMessage = payload.value;
      return true;
    case 'task': {
      // A snapshot (the first event, or the task as it stands when followed again): its state is news only when it changed.
      const before = seen.state;
      takeTask(seen, payload.value);
      const progress = seen.state === before ? undefined : progressOf(seen.state, seen.statusMessage);
      if (progress !== undefined) await onProgress(progress);
      return false;
    }
    case 'artifactUpdate':
      if (payload.value.artifact !== undefined) takeArtifact(seen, payload.value.artifact, payload.value.append);
      return false;
    case 'statusUpdate': {
      const status = payload.value.status;
      if (status === undefined) return false;
      seen.taskId = payload.value.taskId || seen.taskId;
      seen.contextId = payload.value.contextId || seen.contextId;
      seen.state = status.state;
      seen.statusMessage = status.message;
      const progress = progressOf(status.state, status.message);
      if (progress !== undefined) await onProgress(progress);
      return false;
    }
  }
}

/** Streams the peer's answer into `seen`, passing progress on; ends when the stream does. */
async function stream(client: Client, request: PeerRequest, seen: TaskSoFar, signal: AbortSignal, onProgress: (text: string) => Promise<void>): Promise<void> {
  const params = { tenant: '', message: userMessage(request), configuration: undefined, metadata: undefined };
  for await (const event of client.sendMessageStream(params, { signal })) {
    if (await takeEvent(seen, event, onProgress)) return;
  }
}

/**
 * Follows the task over the peer's stream again (SubscribeToTask) until it ends or the stream does.
 * Only a peer whose card says it streams is asked.
 */
async function resubscribe(client: Client, seen: TaskSoFar, signal: AbortSignal, onProgress: (text: string) => Promise<void>): Promise<void> {
  const card = await client.getAgentCard({ signal });
  if (card.capabilities?.streaming !== true) return;
  for await (const event of client.resubscribeTask({ tenant: '', id: seen.taskId }, { signal })) {
    if ((await takeEvent(seen, event, onProgress)) || ENDED.has(seen.state)) return;
  }
}

/**
 * Waits for a task the peer's answer left unsettled: over the peer's stream when it streams, else
 * (or when that stream cannot be had or ends early) by reading the task again.
 */
async function followUntilEnded(client: Client, seen: TaskSoFar, intervalMs: number, signal: AbortSignal, onProgress: (text: string) => Promise<void>): Promise<void> {
  let firstWaitMs = intervalMs;
  try {
    await resubscribe(client, seen, signal, onProgress);
  } catch (error) {
    // A refused token, a card naming another origin or the budget: final. Anything else: read the task instead.
    if (signal.aborted || error instanceof SwitchboardError) throw error;
    if (error instanceof PeerBusy) firstWaitMs = Math.max(intervalMs, error.retryAfterMs ?? intervalMs);
  }
  await pollUntilEnded(client, seen, { intervalMs, firstWaitMs }, signal, onProgress);
}

/**
 * A message the peer received before (our retry after a crash) is rejected with the task it
 * started in `metadata.duplicateOf` (switchboard peers say so): the call follows that task.
 */
function followOriginal(seen: TaskSoFar): void {
  const original: unknown = seen.statusMessage?.metadata?.['duplicateOf'];
  if (seen.state !== TaskState.TASK_STATE_REJECTED || typeof original !== 'string' || original === '' || original === seen.taskId) return;
  seen.taskId = original;
  seen.state = TaskState.TASK_STATE_UNSPECIFIED;
  seen.statusMessage = undefined;
  seen.artifacts.clear();
}

/**
 * Reads the task again every `intervalMs` (the first time after `firstWaitMs`) until it ends; after
 * a 429 the next read waits the peer's `Retry-After` instead (at least `intervalMs`). The budget's
 * signal cuts every wait.
 */
async function pollUntilEnded(
  client: Client,
  seen: TaskSoFar,
  waits: { readonly intervalMs: number; readonly firstWaitMs: number },
  signal: AbortSignal,
  onProgress: (text: string) => Promise<void>,
): Promise<void> {
  const { intervalMs } = waits;
  let waitMs = waits.firstWaitMs;
  while (!ENDED.has(seen.state)) {
    await sleep(waitMs, undefined, { signal });
    waitMs = intervalMs;
    const before = seen.state;
    let task: Task;
    try {
      task = await client.getTask({ tenant: '', id: seen.taskId, historyLength: 0 }, { signal });
    } catch (error) {
      if (!(error instanceof PeerBusy)) throw error;
      waitMs = Math.max(intervalMs, error.retryAfterMs ?? intervalMs);
      continue;
    }
    takeTask(seen, task);
    const progress = seen.state === before ? undefined : progressOf(seen.state, seen.statusMessage);
    if (progress !== undefined) await onProgress(progress);
  }
}

/** Parts of the artifacts, then those of the final status message that the artifacts do not already hold. */
function answerParts(seen: TaskSoFar): A2aPart[] {
  const parts = [...seen.artifacts.values()].flatMap((artifact) => artifact.parts);
  const known = new Set(parts.map((part) => JSON.stringify([part.content, part.metadata?.['partType']])));
  for (const part of seen.statusMessage?.parts ?? []) {
    if (!known.has(JSON.stringify([part.content, part.metadata?.['partType']]))) parts.push(part);
  }
  return parts;
}

function settled(peer: PeerEndpoint, seen: TaskSoFar): PeerOutcome {
  const where = { contextId: seen.contextId, taskId: seen.taskId };
  const said = seen.statusMessage === undefined ? '' : messageText(seen.statusMessage.parts).trim();
  const because = said === '' ? '' : `: ${said}`;
  switch (seen.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { state: 'completed', ...where, parts: answerParts(seen) };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return { state: 'input-required', ...where, parts: seen.statusMessage?.parts ?? [] };
    case TaskState.TASK_STATE_FAILED:
      throw failure(peer, 'failed', `The peer agent "${peer.name}" failed the task${because}`);
    case TaskState.TASK_STATE_REJECTED:
      throw failure(peer, 'rejected', `The peer agent "${peer.name}" rejected the request${because}`);
    case TaskState.TASK_STATE_CANCELED:
      throw failure(peer, 'canceled', `The peer agent "${peer.name}" canceled the task${because}`);
    default:
      throw failure(peer, 'protocol', `The peer agent "${peer.name}" stopped answering before the task ended (state ${TaskState[seen.state]}).`);
  }
}

/** The failure `error` amounts to, knowing whether the budget ran out. */
function asPeerFailure(peer: PeerEndpoint, error: unknown, budget: AbortSignal, budgetMs: number): SwitchboardError {
  if (budget.aborted) {
    return failure(peer, 'timeout', `The peer agent "${peer.name}" did not answer within ${String(budgetMs / 1000)} s, so the call was stopped.`, error);
  }
  if (error instanceof SwitchboardError && error.code === 'peer.failed') return error;
  if (error instanceof PeerBusy) {
    const later = error.retryAfterMs === undefined ? 'later' : `in ${String(Math.ceil(error.retryAfterMs / 1000))} s`;
    return failure(peer, 'busy', `The peer agent "${peer.name}" is too busy to take the call (HTTP 429); it asks to be called again ${later}.`, error);
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    return failure(peer, 'unreachable', `The peer agent "${peer.name}" could not be reached at ${peer.url}${typeof code === 'string' ? ` (${code})` : ''}; it may be down.`, error);
  }
  // The SDK's message quotes the peer's answer: a peer's text of any length, so it is cut.
  const detail = cut(error instanceof Error ? error.message : String(error));
  return failure(peer, 'protocol', `The call to the peer agent "${peer.name}" failed: ${detail}`, error);
}

/**
 * Sends `request` to `peer` and waits for the task to complete or ask for input, at most `budgetMs`
 * (ms). Progress texts go to `onProgress` as they come. On timeout the peer's task is asked to
 * cancel (not awaited).
 *
 * @throws SwitchboardError `peer.failed` with `details.reason` (see {@link PeerFailureReason}): the
 *   budget ran out, the token was refused (401/403), the peer could not be reached, it answered
 *   429 other than while the task was read again (`busy`), the task failed, was rejected or
 *   canceled, or the peer's answer made no sense (`protocol`, also when its Agent Card names an
 *   endpoint on another origin than `peer.url`'s).
 */
export async function callPeer(peer: PeerEndpoint, request: PeerRequest, budgetMs: number, options: PeerClientOptions, onProgress: (text: string) => Promise<void>): Promise<PeerOutcome> {
  const budget = AbortSignal.timeout(Math.max(1, budgetMs));
  const seen: TaskSoFar = { taskId: request.taskId, contextId: request.contextId, state: TaskState.TASK_STATE_UNSPECIFIED, statusMessage: undefined, artifacts: new Map() };
  let client: Client | undefined;
  try {
    client = await connect(peer, options, budget);
    await stream(client, request, seen, budget, onProgress);
    followOriginal(seen);
    if (!ENDED.has(seen.state) && seen.taskId !== '') await followUntilEnded(client, seen, options.pollIntervalMs ?? 1000, budget, onProgress);
  } catch (error) {
    const failed = asPeerFailure(peer, error, budget, budgetMs);
    if (failed.details['reason'] === 'timeout' && client !== undefined && seen.taskId !== '') {
      // Best effort: the peer may stop working on a task nobody waits for any more.
      void client.cancelTask({ tenant: '', id: seen.taskId, metadata: undefined }, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    }
    throw failed;
  }
  return settled(peer, seen);
}
