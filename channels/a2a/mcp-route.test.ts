import { TaskState } from '@a2a-js/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolHandlerContext } from '../../src/protocol/tools/tool-definition.ts';
import { createToolRegistry } from '../../src/protocol/tools/tool-registry.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createMcpRoutes, type McpRoutesOptions } from './mcp-route.ts';
import { answerTask, startPeerRoutes, taskOfInjection, testGate, textPart, type PeerRouteHarness } from './peer-route-fixtures.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

let harness: PeerRouteHarness | undefined;
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await harness?.server.close();
  harness = undefined;
});

/** The calls each handler saw. */
const calls: { tool: string; args: unknown; ctx: ToolHandlerContext }[] = [];

function registry() {
  const tools = createToolRegistry();
  const schema = { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'number' } }, required: ['id'], additionalProperties: false } as const;
  tools.register({
    name: 'order_lookup',
    description: 'Looks an order up.',
    scope: 'generalist',
    peerExposed: true,
    inputSchema: schema,
    handler: (args, ctx) => {
      calls.push({ tool: 'order_lookup', args, ctx });
      return { id: args['id'], status: 'shipped' };
    },
  });
  tools.register({
    name: 'order_refund',
    description: 'Refunds an order.',
    scope: 'generalist',
    peerExposed: true,
    inputSchema: schema,
    requiresApproval: { autoApproveIf: 'args.amount < 50' },
    handler: (args, ctx) => {
      calls.push({ tool: 'order_refund', args, ctx });
      return `refunded ${String(args['amount'])}`;
    },
  });
  tools.register({
    name: 'order_fail',
    description: 'Always fails.',
    scope: 'generalist',
    peerExposed: true,
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('the order system is down');
    },
  });
  tools.register({ name: 'internal_only', description: 'Not for peers.', scope: 'generalist', inputSchema: { type: 'object' }, handler: () => 'secret' });
  return tools;
}

async function start(options: Partial<McpRoutesOptions> = {}): Promise<PeerRouteHarness> {
  calls.length = 0;
  harness = await startPeerRoutes(await connect(), prefix(), (deps) =>
    createMcpRoutes({
      gate: testGate,
      ...deps,
      publicUrl: 'https://bot.example',
      registry: registry(),
      actors: [
        { name: 'concierge', description: 'Answers questions about the hotel.' },
        { name: 'billing', description: 'Answers questions about invoices.' },
      ],
      tenantId: 'tenant-1',
      ...options,
    }),
  );
  return harness;
}

async function mcpClient(h: PeerRouteHarness, token = 'token-alpha'): Promise<Client> {
  const client = new Client({ name: 'test-peer', version: '1.0.0' });
  clients.push(client);
  const transport = new StreamableHTTPClientTransport(new URL(`${h.server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

describe('POST /mcp', () => {
  it('lists one ask tool per peer-facing actor and the peer-exposed tools only', async () => {
    const h = await start();
    const { tools } = await (await mcpClient(h)).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ask_concierge', 'ask_billing', 'order_lookup', 'order_refund', 'order_fail']);
    expect(tools[0]).toMatchObject({ description: expect.stringContaining('Answers questions about the hotel.') as unknown, inputSchema: { type: 'object', required: ['question'] } });
    expect(tools[2]?.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] });
  });

  it('asks an actor: starts a task for the calling peer and answers the settled envelope', async () => {
    const h = await start();
    const client = await mcpClient(h);
    const asking = call(client, 'ask_billing', { question: 'What do I owe?', contextId: 'ctx-9' });
    const injection = await h.injections.next();
    expect(injection).toMatchObject({ channel: 'a2a', actor: 'billing', text: 'What do I owe?', conversationKey: 'alpha:ctx-9', data: { transport: 'mcp', peerId: 'alpha' } });
    await answerTask(h.log, injection, [textPart('You owe 40 EUR.'), { data: { due: 40 }, metadata: { partType: 'domain-data' } }, textPart('Owes 40 EUR.', 'llm-context')]);
    const result = await asking;
    const { taskId } = taskOfInjection(injection);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('You owe 40 EUR.\n\nOwes 40 EUR.');
    expect(result.structuredContent).toMatchObject({ taskId, contextId: 'ctx-9', state: 'completed', envelope: { parts: [{ text: 'You owe 40 EUR.' }, { data: { due: 40 } }, { text: 'Owes 40 EUR.' }] } });
  });

  it('answers a clarify question, takes the answer on the same task, and marks a failure as an error', async () => {
    const h = await start();
    const client = await mcpClient(h, 'token-beta');
    const asking = call(client, 'ask_concierge', { question: 'Book a room' });
    const first = await h.injections.next();
    await answerTask(h.log, first, [textPart('Which night?', 'clarify')], TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = await asking;
    expect(question.isError).toBeFalsy();
    expect(textOf(question)).toBe('Which night?');
    const { taskId } = taskOfInjection(first);
    expect(question.structuredContent).toMatchObject({ taskId, state: 'input-required' });

    const replying = call(client, 'ask_concierge', { question: 'Friday', taskId });
    const second = await h.injections.next();
    expect(second).toMatchObject({ actor: 'concierge', text: 'Friday' });
    await answerTask(h.log, second, [textPart('No room on Friday.', 'error')], TaskState.TASK_STATE_FAILED);
    const failed = await replying;
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('No room on Friday.');

    const stranger = await call(await mcpClient(h), 'ask_concierge', { question: 'Friday', taskId });
    expect(stranger.isError).toBe(true);
    expect(textOf(stranger)).toContain(`No task ${taskId}`);
  });

  it('says the task is still working when the round outlasts the bound, without an error', async () => {
    const h = await start({ askTimeoutMs: 50 });
    const result = await call(await mcpClient(h), 'ask_concierge', { question: 'Think hard' });
    const { taskId } = taskOfInjection(await h.injections.next());
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(`Task ${taskId} is still working`);
    expect(result.structuredContent).toMatchObject({ taskId, state: 'submitted', poll: `https://bot.example/api/turns/${taskId}` });
  });

  it('refuses ask arguments it cannot take, as tool errors', async () => {
    const h = await start();
    const client = await mcpClient(h);
    expect((await call(client, 'ask_concierge', {})).isError).toBe(true);
    expect((await call(client, 'ask_concierge', { question: '  ' })).isError).toBe(true);
    expect((await call(client, 'ask_concierge', { question: 'hi', extra: true })).isError).toBe(true);
    // The same bounds as the webhook reply's.
    const longContext = await call(client, 'ask_concierge', { question: 'hi', contextId: 'c'.repeat(257) });
    expect(longContext.isError).toBe(true);
    expect(textOf(longContext)).toContain('"contextId" must be a non-empty string of at most 256 characters');
    expect((await call(client, 'ask_concierge', { question: 'hi', taskId: 't'.repeat(257) })).isError).toBe(true);
    expect(h.injections.count).toBe(0);
  });

  it('runs a peer-exposed tool for the calling peer and answers its output', async () => {
    const h = await start();
    const client = await mcpClient(h);
    const result = await call(client, 'order_lookup', { id: 'o-1' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 'o-1', status: 'shipped' });
    expect(JSON.parse(textOf(result))).toEqual({ id: 'o-1', status: 'shipped' });
    expect(calls[0]?.ctx).toMatchObject({ actorName: 'mcp', userId: 'alpha', tenantId: 'tenant-1', attributes: { peer: { id: 'alpha', name: 'Alpha' } } });

    const refund = await call(client, 'order_refund', { id: 'o-1', amount: 20 });
    expect(refund.isError).toBeFalsy();
    expect(textOf(refund)).toBe('refunded 20');
    expect(refund.structuredContent).toBeUndefined();
  });

  it("does not run a tool whose policy wants a person's approval, and points to the ask tools", async () => {
    const h = await start();
    const result = await call(await mcpClient(h), 'order_refund', { id: 'o-1', amount: 500 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("needs a person's approval");
    expect(textOf(result)).toContain('"ask_concierge"');
    expect(calls).toEqual([]);
  });

  it('answers invalid arguments and a throwing handler as tool errors', async () => {
    const h = await start();
    const client = await mcpClient(h);
    const invalid = await call(client, 'order_lookup', { id: 7 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('do not match its input schema');
    const thrown = await call(client, 'order_fail', {});
    expect(thrown).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Tool "order_fail" failed: the order system is down' }] });
    await expect(client.callTool({ name: 'internal_only', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(calls).toEqual([]);
  });

  it('refuses a missing or forged token with 401, and GET or DELETE with 405', async () => {
    const h = await start();
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${h.server.origin}/mcp`, { method: 'POST', headers, body: initialize });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const forged = await fetch(`${h.server.origin}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer forged' }, body: initialize });
    expect(forged.status).toBe(401);
    await expect(mcpClient(h, 'forged')).rejects.toThrow();
    const text = await fetch(`${h.server.origin}/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain', authorization: 'Bearer token-alpha' }, body: initialize });
    expect(text.status).toBe(415);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${h.server.origin}/mcp`, { method, headers: { authorization: 'Bearer token-alpha' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
