/**
 * The A2A server as a peer developer meets it: `@a2a-js/sdk`'s own client, created from our Agent
 * Card, over both bindings (JSON-RPC and HTTP+JSON), against a running service with a real Redis
 * and the fake model. Non-streaming and streaming sends, a resubscribe after a dropped stream on
 * another web process, GetTask across a web process restart, cancel, an approval in the middle, a
 * clarify answered in the same task, and what is refused: forged and missing tokens, another
 * peer's task, malformed JSON-RPC.
 */
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { TaskState, type Task } from '@a2a-js/sdk';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { findFreePort as freePort } from '../../src/runtime/redis/free-port.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { callPeer } from '../../channels/a2a/peer-call.ts';
import { peerClient, userMessage, type A2aBinding } from '../support/a2a-client.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, type ScenarioStep } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';

const appDir = fileURLToPath(new URL('../fixtures/peer-app/', import.meta.url));
const CALLER_TOKEN = 'caller-token-0123456789abcdef';
const OTHER_TOKEN = 'other-token-0123456789abcdef';
const peerEnv = { PEER_CALLER_TOKEN: CALLER_TOKEN, PEER_OTHER_TOKEN: OTHER_TOKEN };
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, env: peerEnv, selfAddressed: true });

/** Steps waiting for the test to let them go on, by name. */
const gates = new Map<string, () => void>();
function gate(name: string): Promise<void> {
  return new Promise((resolve) => gates.set(name, resolve));
}
async function release(name: string): Promise<void> {
  await waitFor(() => gates.has(name), `the ${name} step waits`);
  gates.get(name)?.();
  gates.delete(name);
}

const answer: ScenarioStep[] = [
  () => reply(respond([part('ack', 'Looking it up.')], 'awaiting')),
  () => reply(respond([part('response', 'Two direct flights.'), { data: { flights: [{ flightNumber: 'BA2043' }] }, metadata: { partType: 'domain-data' } }], 'complete')),
];

const scenarios: Record<string, ScenarioStep[]> = {
  answer,
  stream: answer,
  slow: [
    () => reply(respond([part('ack', 'Working on it.')], 'awaiting')),
    async () => {
      await gate('slow');
      return reply(respond([part('thinking', 'Still going.')], 'awaiting'));
    },
    () => reply(respond([part('response', 'Done slowly.')], 'complete')),
  ],
  cancel: [
    () => reply(respond([part('ack', 'Starting.')], 'awaiting')),
    async () => {
      await gate('cancel');
      return reply(respond([part('thinking', 'Step two.')], 'awaiting'));
    },
    () => reply(respond([part('response', 'Should not be reached.')], 'complete')),
  ],
  pay: [
    () => reply({ type: 'tool_use', id: 'toolu_pay_1', name: 'pay_invoice', input: { invoice: 'INV-9', amount: 120 } }),
    (call) => reply(respond([part('response', `Paid: ${call.toolResults[0]?.content ?? 'nothing'}`)], 'complete')),
  ],
  refund: [
    () => reply({ type: 'tool_use', id: 'toolu_refund_1', name: 'send_refund', input: { booking: 'B-7' } }),
    (call) => reply(respond([part('response', `Refund: ${call.toolResults[0]?.content ?? 'nothing'}`)], 'complete')),
  ],
  ask: [
    (call) => (call.texts.some((text) => text.includes('Gatwick'))
      ? reply(respond([part('response', 'From Gatwick, then.')], 'complete'))
      : reply(respond([part('clarify', 'Gatwick or Heathrow?')], 'clarifying'))),
  ],
};

/** The fake model: the scenarios above, and the `llm-context` translator's forced tool. */
function useScenarios(): void {
  const script = scenarioScript(scenarios);
  sb().fake.respondWith((request, callIndex) => {
    const tools = (request.body.tools ?? []).map((tool) => ('name' in tool ? tool.name : ''));
    if (tools.includes('write_llm_context')) {
      return { content: [{ type: 'tool_use', id: 'toolu_ctx', name: 'write_llm_context', input: { text: 'Analysis for the peer: BA2043 is the one direct option.' } }], stopReason: 'tool_use' };
    }
    return script(request, callIndex);
  });
}

function partTypes(task: Task): string[] {
  return (task.status?.message?.parts ?? []).map((entry) => String(entry.metadata?.['partType']));
}

async function sendAndWait(binding: A2aBinding, text: string, ids: { contextId?: string; taskId?: string } = {}): Promise<Task> {
  const client = await peerClient(sb().url, CALLER_TOKEN, binding);
  const result = await client.sendMessage({ message: userMessage(text, ids), configuration: undefined, metadata: {}, tenant: '' });
  if (!('id' in result)) throw new Error('expected a task');
  return result;
}

/** Another web process of the same deployment (same Redis and prefix). */
async function webProcess(): Promise<Service> {
  const port = await freePort();
  const env = loadEnv({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: sb().fake.url, SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', PORT: String(port), PUBLIC_URL: `http://localhost:${String(port)}`, ...peerEnv }, { appDir });
  return startService({ env, role: 'web', redisUrl: redisUrl(), logger: pino({ level: 'silent' }), prefix: sb().prefix, port });
}

describe('A2A server', () => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)('SendMessage over %s answers with the settled task: the envelope with partTypes, llm-context for a peer that consumes it, no ack', async (binding) => {
    useScenarios();
    const translations = () => sb().fake.requests.filter((request) => (request.body as { model?: string } | undefined)?.model === 'peer-app-translator').length;
    const before = translations();
    const task = await sendAndWait(binding, 'flights to Corfu #answer');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partTypes(task)).toEqual(['response', 'domain-data', 'llm-context']);
    const data = task.status?.message?.parts.find((entry) => entry.metadata?.['partType'] === 'domain-data');
    expect(data?.content).toEqual({ $case: 'data', value: { flights: [{ flightNumber: 'BA2043' }] } });
    expect(task.artifacts.map((artifact) => artifact.name)).toEqual(['response', 'domain-data', 'llm-context']);
    // Written by the app's own llm-context model, once for the turn.
    expect(translations() - before).toBe(1);
  });

  it('SendStreamingMessage streams the ack as a working status, the answer as artifacts, and the settlement last', async () => {
    useScenarios();
    const client = await peerClient(sb().url, CALLER_TOKEN, 'HTTP+JSON');
    const seen: string[] = [];
    for await (const event of client.sendMessageStream({ message: userMessage('stream please #stream'), configuration: undefined, metadata: {}, tenant: '' })) {
      const payload = event.payload;
      if (payload?.$case === 'statusUpdate') seen.push(`status:${String(payload.value.status?.state)}:${(payload.value.status?.message?.parts ?? []).map((entry) => String(entry.metadata?.['partType'])).join(',')}`);
      else if (payload?.$case === 'artifactUpdate') seen.push(`artifact:${payload.value.artifact?.name ?? ''}`);
      else if (payload !== undefined) seen.push(payload.$case);
    }
    expect(seen[0]).toBe('task');
    expect(seen).toContain(`status:${String(TaskState.TASK_STATE_WORKING)}:ack`);
    expect(seen.indexOf('artifact:response')).toBeGreaterThan(seen.indexOf(`status:${String(TaskState.TASK_STATE_WORKING)}:ack`));
    expect(seen.at(-1)).toBe(`status:${String(TaskState.TASK_STATE_COMPLETED)}:response,domain-data,llm-context`);
  });

  it('a dropped stream is resumed with SubscribeToTask on another web process; GetTask answers across a web restart', async () => {
    useScenarios();
    const client = await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC');
    let taskId = '';
    for await (const event of client.sendMessageStream({ message: userMessage('go slowly #slow'), configuration: undefined, metadata: {}, tenant: '' })) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      if (taskId !== '') break;
    }
    expect(taskId).not.toBe('');
    const other = await webProcess();
    try {
      const resumed = await peerClient(other.url ?? '', CALLER_TOKEN, 'HTTP+JSON');
      const states: number[] = [];
      const reading = (async () => {
        for await (const event of resumed.resubscribeTask({ id: taskId, tenant: '' })) {
          if (event.payload?.$case === 'statusUpdate') states.push(event.payload.value.status?.state ?? -1);
        }
      })();
      await release('slow');
      await reading;
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await other.close();
    }
    const first = await (await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC')).getTask({ id: taskId, tenant: '', historyLength: undefined });
    const restarted = await webProcess();
    try {
      const again = await (await peerClient(restarted.url ?? '', CALLER_TOKEN, 'HTTP+JSON')).getTask({ id: taskId, tenant: '', historyLength: undefined });
      expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(again.artifacts).toEqual(first.artifacts);
    } finally {
      await restarted.close();
    }
  });

  it('CancelTask stops the turn at its next step and the task says canceled', async () => {
    useScenarios();
    const client = await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC');
    const started = await client.sendMessage({ message: userMessage('start #cancel'), configuration: { acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined, returnImmediately: true }, metadata: {}, tenant: '' });
    if (!('id' in started)) throw new Error('expected a task');
    // The model is in its second step when the peer cancels; the turn stops before a third.
    await waitFor(() => gates.has('cancel'), 'the second step waits');
    const canceling = client.cancelTask({ id: started.id, tenant: '', metadata: {} });
    // The step ends once the cancellation is recorded, as it would when the peer is quicker than the model.
    await waitFor(async () => (await sb().redis().exists(`${sb().prefix}:a2a:task:${started.id}:cancel`)) === 1, 'the cancellation is recorded');
    await release('cancel');
    const canceled = await canceling;
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const calls = sb().fake.requests.filter((request) => JSON.stringify(request.body ?? {}).includes('#cancel')).length;
    expect(calls).toBe(2);
  });

  it('CancelTask ends a task that waits for an approval (the waiting turn is woken) or for the peer\'s answer', async () => {
    useScenarios();
    const client = await peerClient(sb().url, CALLER_TOKEN, 'HTTP+JSON');
    const waiting = await client.sendMessage({ message: userMessage('pay INV-10 #pay'), configuration: undefined, metadata: {}, tenant: '' });
    if (!('id' in waiting)) throw new Error('expected a task');
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const request = waiting.status?.message?.parts.find((entry) => entry.metadata?.['partType'] === 'approval-request');
    const approvalId = request?.content?.$case === 'data' ? (request.content.value as { approvalId: string }).approvalId : '';
    expect((await client.cancelTask({ id: waiting.id, tenant: '', metadata: {} })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The woken turn stops, and its approval is withdrawn: the approver is no longer asked.
    const approvals = createApprovalStore({ redis: sb().redis(), prefix: sb().prefix });
    await waitFor(async () => (await approvals.get(approvalId))?.status === 'expired', 'the approval is withdrawn');
    const asked = await sendAndWait('JSONRPC', 'book a flight #ask');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((await client.cancelTask({ id: asked.id, tenant: '', metadata: {} })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a message for a task that is not waiting for the peer\'s answer is refused, and the task goes on', async () => {
    useScenarios();
    const client = await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC');
    const started = await client.sendMessage({ message: userMessage('go slowly #slow'), configuration: { acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined, returnImmediately: true }, metadata: {}, tenant: '' });
    if (!('id' in started)) throw new Error('expected a task');
    await waitFor(() => gates.has('slow'), 'the turn is working');
    await expect(client.sendMessage({ message: userMessage('and another thing #answer', { taskId: started.id, contextId: started.contextId }), configuration: undefined, metadata: {}, tenant: '' })).rejects.toThrow(/only a task waiting for your answer/);
    await release('slow');
    await waitFor(async () => (await client.getTask({ id: started.id, tenant: '', historyLength: undefined })).status?.state === TaskState.TASK_STATE_COMPLETED, 'the task completes', 20_000);
    const done = await client.getTask({ id: started.id, tenant: '', historyLength: undefined });
    const answers = done.status?.message?.parts.filter((entry) => entry.metadata?.['partType'] === 'response').map((entry) => entry.content);
    expect(answers).toEqual([{ $case: 'text', value: 'Done slowly.' }]);
  });

  it('an approval in the middle: auth-required with the approval request, then completed once the finance desk approves', async () => {
    useScenarios();
    const client = await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC');
    const waiting = await client.sendMessage({ message: userMessage('pay INV-9 #pay'), configuration: undefined, metadata: {}, tenant: '' });
    if (!('id' in waiting)) throw new Error('expected a task');
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const request = waiting.status?.message?.parts.find((entry) => entry.metadata?.['partType'] === 'approval-request');
    const approvalId = request?.content?.$case === 'data' ? (request.content.value as { approvalId: string }).approvalId : '';
    expect(approvalId).not.toBe('');
    const desk = await sb().signIn('fin');
    expect((await sb().decide(approvalId, 'granted', { as: desk })).status).toBe(200);
    await waitFor(async () => (await client.getTask({ id: waiting.id, tenant: '', historyLength: undefined })).status?.state === TaskState.TASK_STATE_COMPLETED, 'the task completes', 20_000);
    const done = await client.getTask({ id: waiting.id, tenant: '', historyLength: undefined });
    const text = done.status?.message?.parts.find((entry) => entry.metadata?.['partType'] === 'response');
    expect(text?.content).toMatchObject({ $case: 'text', value: expect.stringContaining('"paid":"INV-9"') as unknown });
  });

  it('a peer never approves: a tool only its requester may approve is refused at once for a peer', async () => {
    useScenarios();
    const task = await sendAndWait('HTTP+JSON', 'refund B-7 #refund');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = task.status?.message?.parts.find((entry) => entry.metadata?.['partType'] === 'response');
    expect(text?.content).toMatchObject({ $case: 'text', value: expect.stringContaining('ToolDenied') as unknown });
  });

  it('a part type it does not know from a peer is kept and ignored, not fatal', async () => {
    useScenarios();
    const message = userMessage('flights please #answer');
    const odd = { content: { $case: 'data' as const, value: { note: 'x' } }, mediaType: 'application/json', filename: '', metadata: { partType: 'acme.unknown-kind' } };
    const client = await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC');
    const result = await client.sendMessage({ message: { ...message, parts: [...message.parts, odd] }, configuration: undefined, metadata: {}, tenant: '' });
    expect('id' in result && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a clarify is input-required; the answer in the same task completes it', async () => {
    useScenarios();
    const asked = await sendAndWait('JSONRPC', 'book a flight #ask');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partTypes(asked)).toEqual(['clarify']);
    const answered = await sendAndWait('JSONRPC', 'Gatwick #ask', { taskId: asked.id, contextId: asked.contextId });
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses forged and missing tokens (401, nothing reached) and hides another peer\'s task (not found)', async () => {
    useScenarios();
    const before = sb().fake.requests.length;
    for (const authorization of ['Bearer forged-token-0123456789', undefined]) {
      const response = await fetch(`${sb().url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi #answer' }] } } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(sb().fake.requests.length).toBe(before);
    const mine = await sendAndWait('JSONRPC', 'mine #answer');
    const other = await peerClient(sb().url, OTHER_TOKEN, 'HTTP+JSON');
    await expect(other.getTask({ id: mine.id, tenant: '', historyLength: undefined })).rejects.toThrow(/not found/i);
    await expect(other.cancelTask({ id: mine.id, tenant: '', metadata: {} })).rejects.toThrow(/not found/i);
    // ListTasks: a peer lists its own tasks, newest first, and none of another peer's.
    const listRequest = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 100, pageToken: '', historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false };
    const own = await (await peerClient(sb().url, CALLER_TOKEN, 'JSONRPC')).listTasks(listRequest);
    expect(own.tasks[0]?.id).toBe(mine.id);
    expect((await other.listTasks(listRequest)).tasks.map((task) => task.id)).not.toContain(mine.id);
  });

  it('over MCP, the MCP SDK client lists ask_main and the peerExposed tool and calls both; a forged token is refused', async () => {
    useScenarios();
    const connect = async (token: string): Promise<McpClient> => {
      const client = new McpClient({ name: 'peer-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${sb().url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    };
    const client = await connect(CALLER_TOKEN);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['ask_main', 'flight_status']));
      expect(names).not.toContain('pay_invoice');
      const asked = await client.callTool({ name: 'ask_main', arguments: { question: 'flights to Corfu #answer' } });
      expect(asked.isError).not.toBe(true);
      const answer = asked.structuredContent as { state: string; envelope: { parts: { metadata: { partType: string } }[] } };
      expect(answer.state).toBe('completed');
      expect(answer.envelope.parts.map((entry) => entry.metadata.partType)).toEqual(['response', 'domain-data', 'llm-context']);
      const status = await client.callTool({ name: 'flight_status', arguments: { flightNumber: 'BA2043' } });
      expect(status.structuredContent).toEqual({ flightNumber: 'BA2043', status: 'on time' });
      const invalid = await client.callTool({ name: 'flight_status', arguments: { flightNumber: 'not a flight' } });
      expect(invalid.isError).toBe(true);
    } finally {
      await client.close();
    }
    await expect(connect('forged-token-0123456789abcdef')).rejects.toThrow();
  });

  it('the webhook reply answers with the envelope within ?wait=, else 202 and a poll URL that answers once settled', async () => {
    useScenarios();
    const post = (path: string, body: unknown) => fetch(`${sb().url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${CALLER_TOKEN}` }, body: JSON.stringify(body) });
    const answered = await post('/api/turns?wait=20', { text: 'flights to Corfu #answer' });
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { state: string; envelope: { parts: { metadata: { partType: string } }[] } };
    expect(body.state).toBe('completed');
    expect(body.envelope.parts.map((entry) => entry.metadata.partType)).toEqual(['response', 'domain-data', 'llm-context']);
    const later = await post('/api/turns?wait=0', { text: 'go slowly #slow' });
    expect(later.status).toBe(202);
    const { poll } = (await later.json()) as { poll: string };
    await release('slow');
    const polled = await fetch(`${poll}?wait=20`, { headers: { authorization: `Bearer ${CALLER_TOKEN}` } });
    expect(polled.status).toBe(200);
    expect(((await polled.json()) as { state: string }).state).toBe('completed');
    const other = await fetch(poll, { headers: { authorization: `Bearer ${OTHER_TOKEN}` } });
    expect(other.status).toBe(404);
  });

  it('the same message sent again (a caller\'s retry) is not run twice: the new task names the first, and a switchboard caller follows it', async () => {
    useScenarios();
    const peer = { id: 'svc', name: 'This service', url: sb().url, token: CALLER_TOKEN };
    const request = { messageId: `retry-${String(Date.now())}`, text: 'flights to Corfu #answer', contextId: '', taskId: '' };
    const before = sb().fake.requests.length;
    const first = await callPeer(peer, request, 20_000, { pollIntervalMs: 20 }, () => Promise.resolve());
    const again = await callPeer(peer, request, 20_000, { pollIntervalMs: 20 }, () => Promise.resolve());
    expect(again.state).toBe('completed');
    expect(again.taskId).toBe(first.taskId);
    const partTypesOf = (parts: typeof first.parts): unknown[] => parts.map((entry): unknown => entry.metadata?.['partType']);
    expect(partTypesOf(again.parts)).toEqual(partTypesOf(first.parts));
    // The model ran for the first only: its two steps and the llm-context translation.
    expect(sb().fake.requests.length - before).toBe(3);
  });

  it('answers malformed JSON-RPC with its error codes, never a crash', async () => {
    const post = async (body: string) => {
      const response = await fetch(`${sb().url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${CALLER_TOKEN}` }, body });
      return (await response.json()) as { error?: { code: number } };
    };
    expect((await post('{"jsonrpc":"2.0",')).error?.code).toBe(-32700);
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'NoSuchMethod', params: {} }))).error?.code).toBe(-32601);
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: '' } }))).error?.code).toBe(-32602);
    const big = await fetch(`${sb().url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${CALLER_TOKEN}` }, body: JSON.stringify({ pad: 'x'.repeat(200_000) }) });
    expect(big.status).toBe(413);
  });
});
