import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { Role, TaskState, type AgentCard, type Message, type Part as A2aPart, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ToolDelegation } from '../../src/protocol/tools/tool-definition.ts';
import { createToolHandlerContext } from '../../src/protocol/tools/tool-handler-context.ts';
import { createToolRegistry } from '../../src/protocol/tools/tool-registry.ts';
import { useStarted } from '../../test/support/use-started.ts';
import { listenOnLoopback, type ListeningServer } from '../../test/support/loopback-server.ts';
import { askPeerMessageId, askPeerTool, registerPeerTools, type AskPeerArgs, type AskPeerResult, type AskablePeer } from './ask-peer.ts';

const TOKEN = 'peer-token-0123456789abcdef';

function textPart(text: string, partType?: string): A2aPart {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: partType === undefined ? undefined : { partType } };
}

function dataPart(data: Record<string, unknown>): A2aPart {
  return { content: { $case: 'data', value: data }, mediaType: 'application/json', filename: '', metadata: { partType: 'domain-data' } };
}

function agentMessage(where: { taskId: string; contextId: string }, parts: A2aPart[]): Message {
  return { messageId: crypto.randomUUID(), ...where, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function textOf(message: Message): string {
  return message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** What the fake peer received. */
interface Received {
  readonly messages: Message[];
  readonly authorizations: (string | undefined)[];
  /** The Authorization header of each Agent Card request. */
  readonly cardAuthorizations: (string | undefined)[];
  /** The JSON-RPC method of each request to the endpoint. */
  readonly methods: string[];
}

/** How the fake peer misbehaves: the next `getTask429` GetTask requests get 429 with `retryAfter`. */
interface Throttle {
  getTask429: number;
  retryAfter: string;
}

/**
 * A small A2A peer built from the SDK's server pieces. What it does depends on the message text:
 * `hotels` completes with progress, an artifact and llm-context; `book` asks which city and
 * completes when answered on the same task; `hang` never answers; `approve` waits for an approval
 * (auth-required) for 150 ms, then completes; `again` is rejected as a repeat of the last `hotels`
 * task (`metadata.duplicateOf`, as a switchboard peer says it); anything else fails the task.
 */
function fakeExecutor(): AgentExecutor {
  let lastHotelsTaskId = '';
  return {
    execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const where = { taskId: request.taskId, contextId: request.contextId };
      const text = textOf(request.userMessage);
      const status = (state: TaskState, parts?: A2aPart[]) =>
        AgentEvent.statusUpdate({ ...where, status: { state, message: parts === undefined ? undefined : agentMessage(where, parts), timestamp: new Date().toISOString() }, metadata: undefined });
      const task: Task = request.task ?? { id: where.taskId, contextId: where.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined }, artifacts: [], history: [request.userMessage], metadata: undefined };
      bus.publish(AgentEvent.task(task));
      if (request.task !== undefined) {
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, [textPart(`Booked a room in ${text}.`, 'response')]));
      } else if (text.includes('hotels')) {
        lastHotelsTaskId = where.taskId;
        bus.publish(status(TaskState.TASK_STATE_WORKING, [textPart('Searching hotels.', 'progress')]));
        const hotels = dataPart({ hotels: [{ name: 'Harbour View', price: 120 }] });
        bus.publish(AgentEvent.artifactUpdate({ ...where, artifact: { artifactId: 'a1', name: 'domain-data', description: '', parts: [hotels], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, [textPart('Here are the hotels.', 'response'), textPart('One hotel, Harbour View, 120 a night.', 'llm-context'), hotels]));
      } else if (text.includes('book')) {
        bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('Which city?', 'clarify')]));
      } else if (text.includes('approve')) {
        bus.publish(status(TaskState.TASK_STATE_AUTH_REQUIRED, [textPart('Waiting for the manager.', 'progress')]));
        return sleep(150).then(() => {
          bus.publish(status(TaskState.TASK_STATE_COMPLETED, [textPart('Approved and booked.', 'response')]));
          bus.finished();
        });
      } else if (text.includes('again')) {
        const refusal = { ...agentMessage(where, [textPart('Received before; nothing new was started.', 'error')]), metadata: { duplicateOf: lastHotelsTaskId } };
        bus.publish(AgentEvent.statusUpdate({ ...where, status: { state: TaskState.TASK_STATE_REJECTED, message: refusal, timestamp: new Date().toISOString() }, metadata: undefined }));
      } else if (text.includes('hang')) {
        bus.publish(status(TaskState.TASK_STATE_WORKING));
        return Promise.resolve(); // never finishes
      } else {
        bus.publish(status(TaskState.TASK_STATE_FAILED, [textPart('No rooms left.', 'error')]));
      }
      bus.finished();
      return Promise.resolve();
    },
    cancelTask: () => Promise.resolve(),
  };
}

/** A fake peer; its card names `endpointOrigin` (default its own) as the JSON-RPC endpoint's origin. */
async function startPeer(streaming: boolean, endpointOrigin?: string): Promise<ListeningServer & { received: Received; throttle: Throttle }> {
  const received: Received = { messages: [], authorizations: [], cardAuthorizations: [], methods: [] };
  const throttle: Throttle = { getTask429: 0, retryAfter: '1' };
  const server = createServer();
  const listening = await listenOnLoopback(server);
  const card: AgentCard = {
    name: 'Hotel agent',
    description: 'Finds and books hotels.',
    supportedInterfaces: [{ url: `${endpointOrigin ?? listening.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), fakeExecutor());
  const app = express();
  app.use('/.well-known/agent-card.json', (req, _res, next) => {
    received.cardAuthorizations.push(req.headers.authorization);
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', (req, res, next) => {
    received.authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    next();
  });
  app.use('/a2a/jsonrpc', express.json(), (req, res, next) => {
    const body = req.body as { method?: string; params?: { message?: Message } };
    received.methods.push(body.method ?? '');
    if (body.method === 'GetTask' && throttle.getTask429 > 0) {
      throttle.getTask429 -= 1;
      res.status(429).set('retry-after', throttle.retryAfter).json({ error: { code: 'http.too_many_requests', message: 'Too many requests.' } });
      return;
    }
    const message = body.params?.message;
    if (message !== undefined) received.messages.push(message);
    next();
  });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  server.on('request', app);
  return { ...listening, received, throttle };
}

/** A server that records every request it gets and answers 200 with an empty JSON object. */
async function startElsewhere(): Promise<ListeningServer & { requests: { url: string; authorization: string | undefined }[] }> {
  const requests: { url: string; authorization: string | undefined }[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { ...(await listenOnLoopback(server)), requests };
}

const streamingPeer = useStarted(() => startPeer(true), (peer) => peer.close(), { name: 'streamingPeer' });
const blockingPeer = useStarted(() => startPeer(false), (peer) => peer.close(), { name: 'blockingPeer' });
const elsewhere = useStarted(startElsewhere, (server) => server.close(), { name: 'elsewhere' });
/** A peer whose card names `elsewhere` as its endpoint. */
const misdirectingPeer = useStarted(() => startPeer(true, elsewhere().origin), (peer) => peer.close(), { name: 'misdirectingPeer' });

/** A fetch that ends every SendStreamingMessage stream after its first event, as a dropped connection would. */
function droppingFetch(): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const method = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }).method : undefined;
    if (method !== 'SendStreamingMessage' || response.body === null) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let read = '';
    while (!read.includes('\n\n')) {
      const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (chunk.done) break;
      read += decoder.decode(chunk.value, { stream: true });
    }
    await reader.cancel();
    return new Response(read.slice(0, read.indexOf('\n\n') + 2), { status: response.status, headers: response.headers });
  };
}

/** A recording delegation hook. */
function recorder(): { delegation: ToolDelegation; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    delegation: {
      begin: (budgetMs) => {
        calls.push(`begin ${String(budgetMs)}`);
        return Promise.resolve();
      },
      progress: (text) => {
        calls.push(`progress ${text}`);
        return Promise.resolve();
      },
    },
  };
}

function peerAt(url: string, overrides: Partial<AskablePeer> = {}): AskablePeer {
  return { id: 'hotel-agent', name: 'Hotel agent', url, token: TOKEN, timeoutSeconds: 5, ...overrides };
}

async function ask(peer: AskablePeer, args: AskPeerArgs, delegation?: ToolDelegation, turnId = 't-1', callId?: string): Promise<AskPeerResult> {
  const tool = askPeerTool(peer, { pollIntervalMs: 20 });
  const ctx = createToolHandlerContext({ actorName: 'concierge', sessionId: 's-1', turnId, callId, delegation });
  return tool.handler(args, ctx);
}

async function failureOf(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SwitchboardError);
  return error as SwitchboardError;
}

describe('askPeerTool', () => {
  it('returns the completed answer: llm-context as text, domain-data as data, progress forwarded', async () => {
    const { delegation, calls } = recorder();
    const result = await ask(peerAt(streamingPeer().origin), { text: 'find hotels in Lisbon' }, delegation);
    expect(result).toMatchObject({
      peer: 'hotel-agent',
      state: 'completed',
      text: 'One hotel, Harbour View, 120 a night.',
      domainData: { kind: 'peer:hotel-agent', data: { hotels: [{ name: 'Harbour View', price: 120 }] } },
    });
    expect(result.taskId).not.toBe('');
    expect(result.contextId).not.toBe('');
    expect(calls).toEqual(['begin 5000', 'progress Searching hotels.']);
    expect(streamingPeer().received.authorizations.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it('sends the same messageId when the same call runs again (a retried turn)', async () => {
    const peer = peerAt(streamingPeer().origin);
    await ask(peer, { text: 'find hotels in Porto' });
    await ask(peer, { text: 'find hotels in Porto' });
    await ask(peer, { text: 'find hotels in Porto' }, undefined, 't-2');
    const ids = streamingPeer().received.messages.slice(-3).map((message) => message.messageId);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('sends a new messageId for a call at a later step of the same turn, and the same one when that call runs again', async () => {
    const peer = peerAt(streamingPeer().origin);
    await ask(peer, { text: 'find hotels in Braga' }, undefined, 't-3', 't-3.2.1');
    await ask(peer, { text: 'find hotels in Braga' }, undefined, 't-3', 't-3.2.1');
    // A deliberate retry after a timeout: the model calls again at a later step.
    const retry = await ask(peer, { text: 'find hotels in Braga' }, undefined, 't-3', 't-3.4.0');
    const ids = streamingPeer().received.messages.slice(-3).map((message) => message.messageId);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    // The peer took it as a new message, not a duplicate of the first.
    expect(retry).toMatchObject({ state: 'completed', text: 'One hotel, Harbour View, 120 a night.' });
  });

  it('returns a question on input-required, and a second call with its taskId continues the task', async () => {
    const peer = peerAt(streamingPeer().origin);
    const question = await ask(peer, { text: 'book a room' });
    expect(question).toMatchObject({ state: 'input-required', question: 'Which city?' });
    if (question.state !== 'input-required') throw new Error('expected a question');
    expect(question.note).toContain('ask_hotel_agent');
    expect(question.note).toContain(question.taskId);
    const answer = await ask(peer, { text: 'Lisbon', contextId: question.contextId, taskId: question.taskId });
    expect(answer).toMatchObject({ state: 'completed', text: 'Booked a room in Lisbon.', taskId: question.taskId, contextId: question.contextId });
  });

  it('falls back to a blocking call when the card says the peer does not stream', async () => {
    const result = await ask(peerAt(blockingPeer().origin), { text: 'find hotels in Faro' });
    expect(result).toMatchObject({ state: 'completed', text: 'One hotel, Harbour View, 120 a night.', domainData: { kind: 'peer:hotel-agent' } });
  });

  it('throws a clear error for a failed task', async () => {
    const error = await failureOf(ask(peerAt(streamingPeer().origin), { text: 'anything else' }));
    expect(error.code).toBe('peer.failed');
    expect(error.details).toEqual({ peer: 'hotel-agent', reason: 'failed' });
    expect(error.message).toBe('The peer agent "Hotel agent" failed the task: No rooms left.');
  });

  it('throws a clear error when the peer refuses our token', async () => {
    const error = await failureOf(ask(peerAt(streamingPeer().origin, { token: 'wrong-token-0123456789' }), { text: 'find hotels' }));
    expect(error.details['reason']).toBe('unauthorized');
    expect(error.message).toContain('refused our token (HTTP 401)');
    expect(error.message).not.toContain('wrong-token');
  });

  it('throws a clear error, fast, when the peer is down', async () => {
    const down = await listenOnLoopback(createServer());
    await down.close();
    const started = Date.now();
    const error = await failureOf(ask(peerAt(down.origin), { text: 'find hotels' }));
    expect(error.details['reason']).toBe('unreachable');
    expect(error.message).toMatch(/could not be reached at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); it may be down\./);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops a peer that never answers at its budget', async () => {
    const { delegation, calls } = recorder();
    const started = Date.now();
    const error = await failureOf(ask(peerAt(streamingPeer().origin, { timeoutSeconds: 0.3 }), { text: 'hang on' }, delegation));
    expect(error.details['reason']).toBe('timeout');
    expect(error.message).toBe('The peer agent "Hotel agent" did not answer within 0.3 s, so the call was stopped.');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(calls).toEqual(['begin 300']);
  });

  it('sends our token only to the origin of the peer url: a card naming another host fails the call, which sends nothing there', async () => {
    const error = await failureOf(ask(peerAt(misdirectingPeer().origin), { text: 'find hotels' }));
    expect(error.details).toEqual({ peer: 'hotel-agent', reason: 'protocol' });
    expect(error.message).toContain(elsewhere().origin);
    expect(error.message).toContain(misdirectingPeer().origin);
    expect(error.message).toContain('refused');
    expect(elsewhere().requests).toEqual([]);
  });

  it('cuts what the peer said in a failure to about 300 characters', async () => {
    const rambling: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.endsWith('/a2a/jsonrpc') ? new Response(`Oops ${'x'.repeat(5000)}`, { status: 500 }) : fetch(input, init);
    };
    const tool = askPeerTool(peerAt(streamingPeer().origin), { fetch: rambling });
    const error = await failureOf(Promise.resolve(tool.handler({ text: 'find hotels' }, createToolHandlerContext({ actorName: 'concierge', sessionId: 's-1', turnId: 't-8' }))));
    expect(error.details['reason']).toBe('protocol');
    expect(error.message).toContain('failed: HTTP error');
    expect(error.message.length).toBeLessThan(400);
    expect(error.message.endsWith('…')).toBe(true);
  });

  it('reads the Agent Card without our token', async () => {
    await ask(peerAt(streamingPeer().origin), { text: 'find hotels in Evora' });
    expect(streamingPeer().received.cardAuthorizations.length).toBeGreaterThan(0);
    expect(streamingPeer().received.cardAuthorizations.every((authorization) => authorization === undefined)).toBe(true);
    expect(streamingPeer().received.authorizations.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it('follows the task a repeated message started (metadata.duplicateOf of a rejection) and answers with its outcome', async () => {
    const peer = blockingPeer();
    await ask(peerAt(peer.origin), { text: 'find hotels in Porto' });
    const before = peer.received.methods.length;
    const result = await ask(peerAt(peer.origin), { text: 'send it again' });
    // The original task's outcome (its llm-context), not the rejection.
    expect(result).toMatchObject({ state: 'completed', text: 'One hotel, Harbour View, 120 a night.' });
    expect(peer.received.methods.slice(before)).toContain('GetTask');
  });

  it('waits the Retry-After of a 429 while polling a task, then goes on', async () => {
    const peer = blockingPeer();
    peer.throttle.getTask429 = 1;
    peer.throttle.retryAfter = '1';
    const before = peer.received.methods.length;
    const started = Date.now();
    const result = await ask(peerAt(peer.origin), { text: 'approve the stay' });
    expect(result).toMatchObject({ state: 'completed', text: 'Approved and booked.' });
    expect(peer.throttle.getTask429).toBe(0);
    const methods = peer.received.methods.slice(before);
    expect(methods.filter((method) => method === 'GetTask').length).toBeGreaterThanOrEqual(2);
    // The 429 asked for 1 s; the poll interval is 20 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('follows a task whose stream dropped over the peer\'s stream again (SubscribeToTask), not by polling', async () => {
    const peer = streamingPeer();
    const before = peer.received.methods.length;
    const tool = askPeerTool(peerAt(peer.origin), { pollIntervalMs: 20, fetch: droppingFetch() });
    const { delegation, calls } = recorder();
    const result = await tool.handler({ text: 'approve the stay' }, createToolHandlerContext({ actorName: 'concierge', sessionId: 's-1', turnId: 't-9', delegation }));
    expect(result).toMatchObject({ state: 'completed', text: 'Approved and booked.' });
    const methods = peer.received.methods.slice(before);
    expect(methods).toContain('SubscribeToTask');
    expect(methods).not.toContain('GetTask');
    expect(calls).toContain("progress Waiting for a person's approval on the peer's side. Waiting for the manager.");
  });

  it('stops a blocking peer that never answers at its budget', async () => {
    const error = await failureOf(ask(peerAt(blockingPeer().origin, { timeoutSeconds: 0.3 }), { text: 'hang on' }));
    expect(error.details['reason']).toBe('timeout');
  });
});

describe('askPeerMessageId', () => {
  const args = { text: 'find hotels' };
  it('differs between calls at different positions of one turn, and is stable for one position', () => {
    const first = askPeerMessageId({ sessionId: 's', turnId: 't', callId: 't.2.1' }, 'hotels', args);
    expect(askPeerMessageId({ sessionId: 's', turnId: 't', callId: 't.2.1' }, 'hotels', args)).toBe(first);
    expect(askPeerMessageId({ sessionId: 's', turnId: 't', callId: 't.4.0' }, 'hotels', args)).not.toBe(first);
  });

  it('falls back to the turn without a callId', () => {
    const first = askPeerMessageId({ sessionId: 's', turnId: 't' }, 'hotels', args);
    expect(askPeerMessageId({ sessionId: 's', turnId: 't' }, 'hotels', args)).toBe(first);
    expect(askPeerMessageId({ sessionId: 's', turnId: 't2' }, 'hotels', args)).not.toBe(first);
  });
});

describe('registerPeerTools', () => {
  it('registers ask_<id> for each peer with a url, as a generalist tool with text, contextId and taskId', () => {
    const registry = createToolRegistry();
    const names = registerPeerTools(registry, [
      { id: 'hotel-agent', name: 'Hotel agent', url: 'http://127.0.0.1:1', token: TOKEN, timeoutSeconds: 60 },
      { id: 'inbound-only', name: 'Caller', token: TOKEN, timeoutSeconds: 60 },
    ]);
    expect(names).toEqual(['ask_hotel_agent']);
    const tool = registry.get('ask_hotel_agent');
    expect(tool).toMatchObject({ scope: 'generalist', routing: 'routed' });
    expect(tool?.description).toContain('Hotel agent');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['text', 'contextId', 'taskId']);
    expect(registry.validateArguments('ask_hotel_agent', { text: 'hi', contextId: 'c' }).ok).toBe(true);
    expect(registry.validateArguments('ask_hotel_agent', { contextId: 'c' }).ok).toBe(false);
  });
});
