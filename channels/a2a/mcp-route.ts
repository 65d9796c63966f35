/**
 * The MCP server for peers (`POST /mcp`, Streamable HTTP, stateless: a new server and transport
 * per request, JSON answers). Behind the same bearer-token checks as the other peer routes. Tools:
 * `ask_<actor>` for each actor that answers peers (a buffered turn: the tool result is the settled
 * envelope) and every registry tool marked `peerExposed` (run at once, unless its approval policy
 * wants a person's approval).
 */
import { randomUUID } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { RegisteredTool } from '../../src/protocol/tools/tool-definition.ts';
import { createToolHandlerContext } from '../../src/protocol/tools/tool-handler-context.ts';
import type { ToolRegistry } from '../../src/protocol/tools/tool-registry.ts';
import { sendJson, type HttpContext, type Route } from '../../src/runtime/http/router.ts';
import { readBody, requireJsonContentType } from '../../src/runtime/http/request-body.ts';
import { fromA2aPart } from './a2a-parts.ts';
import { awaitRound, isRoundOver, type AwaitRoundDeps } from './await-task.ts';
import { MAX_PEER_BODY_BYTES, type PeerGate } from './inbound.ts';
import { bufferedAnswer, stateName, type PeerTurns } from './peer-turns.ts';
import type { CallingPeer } from './peer-user.ts';
import type { TaskLog } from './task-log.ts';
import { admitPeer } from './inbound.ts';
import { optionalId, pollUrl, startPeerText } from './turns-route.ts';

/** Default of {@link McpRoutesOptions.askTimeoutMs}: 120 s. */
export const DEFAULT_ASK_TIMEOUT_MS = 120_000;

/** An actor that answers peers, offered as the tool `ask_<name>`. */
export interface PeerActor {
  readonly name: string;
  /** What the actor does, for the tool's description. */
  readonly description: string;
}

/** Options of {@link createMcpRoutes}. */
export interface McpRoutesOptions {
  readonly gate: PeerGate;
  readonly log: TaskLog;
  readonly turns: PeerTurns;
  /** What waiting for a round reads (the log and the command connection). */
  readonly round: AwaitRoundDeps;
  /** `PUBLIC_URL`, for the poll link of a task still working when an ask gives up waiting. */
  readonly publicUrl: string;
  /** The tools; those marked `peerExposed` are offered. */
  readonly registry: ToolRegistry;
  /** The actors that answer peers (each peer's `actor`, else the `a2a` channel's), one tool each. */
  readonly actors: readonly PeerActor[];
  /** The tenant, for the handler context of peer-exposed tools. Default none. */
  readonly tenantId?: string;
  /** How long `ask_<actor>` waits for the round, in ms. Default {@link DEFAULT_ASK_TIMEOUT_MS}. */
  readonly askTimeoutMs?: number;
  /** The server's name and version in the MCP handshake. Default `switchboard` `0.1.0`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

/** One tool as this server offers it. */
interface PeerTool {
  readonly definition: Tool;
  call(peer: CallingPeer, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

/** Envelope part types whose text is the answer a caller reads. */
const ANSWER_TEXT_TYPES: ReadonlySet<string> = new Set(['response', 'clarify', 'error', 'llm-context']);

/** States in which the answer is a failure. */
const FAILED_STATES: ReadonlySet<string> = new Set(['failed', 'rejected', 'canceled']);

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** An ask's result: the buffered envelope, its answer text, or where to look later. */
function askResult(options: McpRoutesOptions, task: Task, waitedMs: number): CallToolResult {
  const answer = bufferedAnswer(task);
  const state = stateName(task);
  if (!isRoundOver(task)) {
    const poll = pollUrl(options.publicUrl, task.id);
    const why = state === 'auth-required' ? "it waits for a person's approval and goes on by itself once they decide" : `it is ${state}`;
    const text = `Task ${task.id} is still working after ${String(Math.round(waitedMs / 1000))} s (${why}). Its answer will be at GET ${poll} (the same bearer token) and through A2A GetTask.`;
    return { content: [{ type: 'text', text }], structuredContent: { ...answer, poll } };
  }
  const parts = (task.status?.message?.parts ?? []).map(fromA2aPart);
  const texts = parts.filter((part) => ANSWER_TEXT_TYPES.has(part.metadata.partType) && part.text !== undefined && part.text !== '').map((part) => part.text ?? '');
  const text = texts.length > 0 ? texts.join('\n\n') : JSON.stringify(answer);
  return { content: [{ type: 'text', text }], structuredContent: answer, ...(FAILED_STATES.has(state) ? { isError: true } : {}) };
}

const ASK_FIELDS = new Set(['question', 'contextId', 'taskId']);

function askTool(options: McpRoutesOptions, actor: PeerActor): PeerTool {
  const timeoutMs = options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
  return {
    definition: {
      name: `ask_${actor.name}`,
      description: `${actor.description}\n\nAsk ${actor.name} in plain language. Answers the settled envelope. When the answer is a question back (state input-required), answer it with the same taskId.`,
      inputSchema: {
        type: 'object',
        properties: {
          question: { type: 'string', description: 'What you ask, in plain language.' },
          contextId: { type: 'string', description: 'The conversation to continue; omit for a new one.' },
          taskId: { type: 'string', description: 'The task whose question (state input-required) this answers.' },
        },
        required: ['question'],
        additionalProperties: false,
      },
    },
    async call(peer, args, signal) {
      const unknown = Object.keys(args).filter((key) => !ASK_FIELDS.has(key));
      const question = args['question'];
      let task: Task;
      try {
        if (unknown.length > 0) throw new SwitchboardError('http.bad_request', `Unknown argument(s) ${unknown.join(', ')}.`);
        if (typeof question !== 'string') throw new SwitchboardError('http.bad_request', '"question" is required and must be a string.');
        task = await startPeerText(options, {
          peer: { ...peer, actor: actor.name },
          text: question,
          contextId: optionalId(args, 'contextId'),
          taskId: optionalId(args, 'taskId'),
          transport: 'mcp',
        });
      } catch (error) {
        // The caller's mistakes are results it can read; anything else (Redis) is a protocol error.
        if (error instanceof SwitchboardError && error.code.startsWith('http.')) return failure(error.message);
        throw error;
      }
      const started = Date.now();
      const settled = await awaitRound(options.round, task.id, timeoutMs, signal);
      return askResult(options, settled, Date.now() - started);
    },
  };
}

/** A handler's output as a tool result: an object as structured content (and its JSON as text), anything else as text. */
function outputResult(output: unknown): CallToolResult {
  const text = typeof output === 'string' ? output : (JSON.stringify(output) as string | undefined) ?? '';
  const structured = typeof output === 'object' && output !== null && !Array.isArray(output);
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: output as Record<string, unknown> } : {}) };
}

function registryTool(options: McpRoutesOptions, tool: RegisteredTool, askNames: readonly string[]): PeerTool {
  const { registry } = options;
  const viaAsk = askNames.length === 0 ? 'an actor that answers peers' : askNames.map((name) => `"${name}"`).join(' or ');
  return {
    definition: { name: tool.name, description: tool.description, inputSchema: structuredClone(tool.inputSchema) as Tool['inputSchema'] },
    async call(peer, args) {
      const checked = registry.validateArguments(tool.name, args);
      if (!checked.ok) return failure(checked.message);
      const ctx = createToolHandlerContext({
        actorName: 'mcp',
        sessionId: `mcp:${peer.id}`,
        turnId: `mcp:${randomUUID()}`,
        userId: peer.id,
        tenantId: options.tenantId,
        attributes: { peer: { id: peer.id, name: peer.name } },
      });
      const approval = await registry.evaluateApproval(tool.name, checked.value, ctx);
      if (approval.required) {
        return failure(`Tool "${tool.name}" needs a person's approval before it runs, and a direct MCP call cannot wait for one. Ask through ${viaAsk} instead: that turn waits for the approver.`);
      }
      let output: unknown;
      try {
        output = await tool.handler(checked.value, ctx);
      } catch (error) {
        return failure(`Tool "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      const valid = registry.validateOutput(tool.name, output);
      return valid.ok ? outputResult(output) : failure(valid.message);
    },
  };
}

/** Every tool offered to peers, by name; an `ask_<actor>` wins over a registry tool of the same name. */
export function peerTools(options: McpRoutesOptions): ReadonlyMap<string, PeerTool> {
  const tools = new Map<string, PeerTool>();
  for (const actor of options.actors) tools.set(`ask_${actor.name}`, askTool(options, actor));
  const askNames = [...tools.keys()];
  for (const tool of options.registry.all()) {
    if (tool.scope === 'generalist' && tool.peerExposed && !tools.has(tool.name)) tools.set(tool.name, registryTool(options, tool, askNames));
  }
  return tools;
}

/** A fresh MCP server for one request of `peer`. */
function mcpServer(options: McpRoutesOptions, tools: ReadonlyMap<string, PeerTool>, peer: CallingPeer): McpServer {
  const server = new McpServer(options.serverInfo ?? { name: 'switchboard', version: '0.1.0' }, { capabilities: { tools: {} } });
  // Tools with JSON Schemas of their own: the low-level handlers (registerTool takes Zod schemas).
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.values()].map((tool) => tool.definition) }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}". Known tools: ${[...tools.keys()].join(', ')}.`);
    return tool.call(peer, request.params.arguments ?? {}, extra.signal);
  });
  return server;
}

/** The JSON body of an MCP request. */
async function mcpBody(context: HttpContext): Promise<unknown> {
  requireJsonContentType(context.req);
  const raw = (await readBody(context.req, MAX_PEER_BODY_BYTES)).toString('utf8');
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new SwitchboardError('http.bad_request', 'The body is not valid JSON.', { cause: error });
  }
}

function notAllowed(context: HttpContext): Promise<void> {
  context.res.setHeader('allow', 'POST');
  sendJson(context.res, 405, { jsonrpc: '2.0', error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed: this MCP server is stateless; send POST /mcp.' }, id: null });
  return Promise.resolve();
}

/**
 * The routes of the MCP server: `POST /mcp`, and 405 for `GET` and `DELETE /mcp` (no sessions, no
 * server-sent stream).
 *
 * @example
 * routes.push(...createMcpRoutes({ gate, log, turns, round: { log, redis }, publicUrl, registry, actors: [{ name: 'concierge', description: '...' }] }));
 */
export function createMcpRoutes(options: McpRoutesOptions): Route[] {
  const tools = peerTools(options);
  return [
    {
      method: 'POST',
      pattern: '/mcp',
      handler: async (context) => {
        const peer = await admitPeer(options.gate, context);
        if (peer === undefined) return;
        const body = await mcpBody(context);
        const server = mcpServer(options, tools, peer);
        const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
        context.res.once('close', () => {
          transport.close().catch(() => undefined);
          server.close().catch(() => undefined);
        });
        await server.connect(transport);
        await transport.handleRequest(context.req, context.res, body);
      },
    },
    { method: 'GET', pattern: '/mcp', handler: notAllowed },
    { method: 'DELETE', pattern: '/mcp', handler: notAllowed },
  ];
}
