import { createServer } from 'node:http';
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
import { askPeerTool, registerPeerTools, type AskPeerArgs, type AskPeerResult, type AskablePeer } from './ask-peer.ts';

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
}

/**
 * A small A2A peer built from the SDK's server pieces. What it does depends on the message text:
 * `hotels` completes with progress, an artifact and llm-context; `book` asks which city and
 * completes when answered on the same task; `hang` never answers; `fail` fails the task.
 */
function fakeExecutor(): AgentExecutor {
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
        bus.publish(status(TaskState.TASK_STATE_WORKING, [textPart('Searching hotels.', 'progress')]));
        const hotels = dataPart({ hotels: [{ name: 'Harbour View', price: 120 }] });
        bus.publish(AgentEvent.artifactUpdate({ ...where, artifact: { artifactId: 'a1', name: 'domain-data', description: '', parts: [hotels], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, [textPart('Here are the hotels.', 'response'), textPart('One hotel, Harbour View, 120 a night.', 'llm-context'), hotels]));
      } else if (text.includes('book')) {
        bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('Which city?', 'clarify')]));
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

async function startPeer(streaming: boolean): Promise<ListeningServer & { received: Received }> {
  const received: Received = { messages: [], authorizations: [] };
  const server = createServer();
  const listening = await listenOnLoopback(server);
  const card: AgentCard = {
    name: 'Hotel agent',
    description: 'Finds and books hotels.',
    supportedInterfaces: [{ url: `${listening.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
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
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', (req, res, next) => {
    received.authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    next();
  });
  app.use('/a2a/jsonrpc', express.json(), (req, _res, next) => {
    const message = (req.body as { params?: { message?: Message } }).params?.message;
    if (message !== undefined) received.messages.push(message);
    next();
  });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  server.on('request', app);
  return { ...listening, received };
}

const streamingPeer = useStarted(() => startPeer(true), (peer) => peer.close(), { name: 'streamingPeer' });
const blockingPeer = useStarted(() => startPeer(false), (peer) => peer.close(), { name: 'blockingPeer' });

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

async function ask(peer: AskablePeer, args: AskPeerArgs, delegation?: ToolDelegation, turnId = 't-1'): Promise<AskPeerResult> {
  const tool = askPeerTool(peer, { pollIntervalMs: 20 });
  const ctx = createToolHandlerContext({ actorName: 'concierge', sessionId: 's-1', turnId, delegation });
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

  it('stops a blocking peer that never answers at its budget', async () => {
    const error = await failureOf(ask(peerAt(blockingPeer().origin, { timeoutSeconds: 0.3 }), { text: 'hang on' }));
    expect(error.details['reason']).toBe('timeout');
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
