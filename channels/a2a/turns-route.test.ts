import { TaskState } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import { answerTask, startPeerRoutes, taskOfInjection, testGate, textPart, type PeerRouteHarness, type PeerRouteOptions } from './peer-route-fixtures.ts';
import { createTurnsRoutes } from './turns-route.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const PUBLIC_URL = 'https://bot.example/';
let harness: PeerRouteHarness | undefined;

afterEach(async () => {
  await harness?.server.close();
  harness = undefined;
});

async function start(options: PeerRouteOptions = {}): Promise<PeerRouteHarness> {
  harness = await startPeerRoutes(await connect(), prefix(), (deps) => createTurnsRoutes({ gate: testGate, ...deps, publicUrl: PUBLIC_URL }), options);
  return harness;
}

function post(h: PeerRouteHarness, body: unknown, options: { token?: string; wait?: string; contentType?: string; signal?: AbortSignal } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (options.token !== '') headers['authorization'] = `Bearer ${options.token ?? 'token-alpha'}`;
  const query = options.wait === undefined ? '' : `?wait=${options.wait}`;
  return fetch(`${h.server.origin}/api/turns${query}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), ...(options.signal === undefined ? {} : { signal: options.signal }) });
}

function poll(h: PeerRouteHarness, taskId: string, options: { token?: string; wait?: string } = {}): Promise<Response> {
  return fetch(`${h.server.origin}/api/turns/${taskId}?wait=${options.wait ?? '0'}`, { headers: { authorization: `Bearer ${options.token ?? 'token-alpha'}` } });
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

describe('POST /api/turns', () => {
  it('answers the settled envelope when the round ends within the wait', async () => {
    const h = await start();
    const answering = post(h, { text: 'What is open today?', contextId: 'ctx-1' }, { wait: '20' });
    const injection = await h.injections.next();
    expect(injection).toMatchObject({ channel: 'a2a', text: 'What is open today?', conversationKey: 'alpha:ctx-1', data: { transport: 'webhook', peerId: 'alpha' } });
    await answerTask(h.log, injection, [textPart('The library and the pool.'), { data: { open: ['library', 'pool'] }, metadata: { partType: 'domain-data' } }]);
    const response = await answering;
    expect(response.status).toBe(200);
    const { taskId } = taskOfInjection(injection);
    expect(await json(response)).toMatchObject({
      taskId,
      contextId: 'ctx-1',
      state: 'completed',
      envelope: {
        role: 'agent',
        parts: [
          { text: 'The library and the pool.', metadata: { partType: 'response' } },
          { data: { open: ['library', 'pool'] }, metadata: { partType: 'domain-data' } },
        ],
        meta: { taskId, contextId: 'ctx-1', turnId: 'turn-1', finalizedBy: 'completed' },
      },
    });
  });

  it('answers 202 with where to poll when the round is not over, and the poll answers it later', async () => {
    const h = await start();
    const response = await post(h, { text: 'Book a room' }, { wait: '0' });
    expect(response.status).toBe(202);
    const injection = await h.injections.next();
    const { taskId, contextId } = taskOfInjection(injection);
    const poll202 = `https://bot.example/api/turns/${taskId}`;
    expect(response.headers.get('location')).toBe(poll202);
    expect(await json(response)).toEqual({ taskId, contextId, state: 'submitted', poll: poll202 });
    expect(contextId).toMatch(/^[0-9a-f-]{36}$/);

    const early = await poll(h, taskId);
    expect(early.status).toBe(202);
    const later = poll(h, taskId, { wait: '20' });
    await answerTask(h.log, injection, [textPart('Booked.')]);
    const answered = await later;
    expect(answered.status).toBe(200);
    expect(await json(answered)).toMatchObject({ taskId, state: 'completed', envelope: { parts: [{ text: 'Booked.' }] } });
  });

  it('answers 202 when the wait passes first', async () => {
    const h = await start();
    const response = await post(h, { text: 'Slow one' }, { wait: '0.05' });
    expect(response.status).toBe(202);
    expect(await json(response)).toMatchObject({ state: 'submitted' });
  });

  it('answers a clarify question as input-required, and the same task goes on with the answer', async () => {
    const h = await start();
    const asking = post(h, { text: 'Book a table' }, { wait: '20' });
    const first = await h.injections.next();
    await answerTask(h.log, first, [textPart('For how many people?', 'clarify')], TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = await json(await asking);
    const { taskId, contextId } = taskOfInjection(first);
    expect(question).toMatchObject({ taskId, state: 'input-required', envelope: { parts: [{ text: 'For how many people?', metadata: { partType: 'clarify' } }] } });

    expect((await post(h, { text: 'Four', taskId }, { token: 'token-beta' })).status).toBe(404);
    expect((await post(h, { text: 'Four', taskId, contextId: 'other' })).status).toBe(400);
    const replying = post(h, { text: 'Four', taskId }, { wait: '20' });
    const second = await h.injections.next();
    expect(taskOfInjection(second)).toEqual({ taskId, contextId });
    expect(second.text).toBe('Four');
    await answerTask(h.log, second, [textPart('Booked for four.')]);
    expect(await json(await replying)).toMatchObject({ taskId, contextId, state: 'completed' });
    const stored = await h.log.load(taskId);
    expect(stored?.task.history.map((message) => message.parts[0]?.content)).toContainEqual({ $case: 'text', value: 'Four' });

    const done = await post(h, { text: 'And drinks', taskId });
    expect(done.status).toBe(400);
    expect(JSON.stringify(await json(done))).toContain('completed');
  });

  it('does not wait for a caller that went away while its task was being started', async () => {
    let enqueue: () => void = () => undefined;
    const h = await start({ enqueued: new Promise((resolve) => { enqueue = resolve; }) });
    const gone = new AbortController();
    const posting = post(h, { text: 'Never mind' }, { wait: '20', signal: gone.signal }).catch(() => undefined);
    await h.injections.next();
    gone.abort();
    await posting;
    await waitFor(() => h.closed() === 1, 'the server saw the caller go');
    enqueue();
    await waitFor(() => h.inFlight() === 0, 'the request ended', 2_000);
  });

  it('refuses bodies that are not { text, contextId?, taskId? } with 400, and other content types with 415', async () => {
    const h = await start();
    for (const body of [{}, { text: 42 }, { text: '   ' }, { text: 'hi', extra: 1 }, { text: 'hi', contextId: '' }, { text: 'hi', taskId: 7 }, '[1]', '{"text":']) {
      const response = await post(h, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await json(response)).toMatchObject({ error: { code: 'http.bad_request' } });
    }
    expect((await post(h, { text: 'hi', taskId: 'unknown' })).status).toBe(404);
    expect((await post(h, { text: 'hi' }, { wait: '121' })).status).toBe(400);
    expect((await post(h, { text: 'hi' }, { wait: 'soon' })).status).toBe(400);
    const form = await post(h, 'text=hi', { contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(await json(form)).toMatchObject({ error: { code: 'http.unsupported_media_type' } });
    expect(h.injections.count).toBe(0);
  });

  it('refuses a missing or forged token with 401, a peer over its rate with 429, a large body with 413', async () => {
    const h = await start();
    const missing = await post(h, { text: 'hi' }, { token: '' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post(h, { text: 'hi' }, { token: 'forged' })).status).toBe(401);
    const busy = await post(h, { text: 'hi' }, { token: 'token-busy' });
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('7');
    expect((await post(h, { text: 'x'.repeat(200 * 1024) })).status).toBe(413);
    expect((await poll(h, 'any', { token: 'forged' })).status).toBe(401);
    expect(h.injections.count).toBe(0);
  });
});

describe('GET /api/turns/:taskId', () => {
  it("answers 404 for another peer's task and for an unknown one", async () => {
    const h = await start();
    expect((await post(h, { text: 'Mine' }, { wait: '0' })).status).toBe(202);
    const { taskId } = taskOfInjection(await h.injections.next());
    expect((await poll(h, taskId, { token: 'token-beta' })).status).toBe(404);
    expect((await poll(h, 'no-such-task')).status).toBe(404);
    expect((await poll(h, taskId)).status).toBe(202);
  });
});
