import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  OverloadedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, Tool } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL } from '../../src/config/models.ts';
import { recordedErrorBody, recordedToolUseMessage, recordedToolUseStream } from '../support/anthropic-fixtures.ts';
import { streamEvents } from './anthropic-wire.ts';
import type { FakeAnthropic } from './fake-anthropic-types.ts';
import { startFakeAnthropic } from './fake-anthropic.ts';

let fake: FakeAnthropic;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  client = new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
});

afterEach(() => {
  const problems = [...fake.problems];
  fake.reset();
  expect(problems).toEqual([]);
});

afterAll(async () => {
  await fake.close();
});

const lookupOrder: Tool = {
  name: 'lookup_order',
  description: 'Look up an order by id.',
  input_schema: {
    type: 'object',
    properties: { order_id: { type: 'string' }, include_items: { type: 'boolean' } },
    required: ['order_id'],
  },
};

const baseRequest: MessageCreateParamsNonStreaming = {
  model: DEFAULT_ACTOR_MODEL,
  max_tokens: 1024,
  system: [{ type: 'text', text: 'You are the order desk.', cache_control: { type: 'ephemeral' } }],
  tools: [lookupOrder],
  tool_choice: { type: 'auto' },
  messages: [{ role: 'user', content: 'Where is order A-1042?' }],
};

describe('POST /v1/messages (JSON)', () => {
  it('round-trips a tool call and its result', async () => {
    fake.enqueue(
      {
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_fake_a', name: 'lookup_order', input: { order_id: 'A-1042' } },
        ],
        usage: { inputTokens: 300, outputTokens: 40, cacheReadInputTokens: 2000, cacheCreationInputTokens: 12 },
      },
      { content: [{ type: 'text', text: 'It ships tomorrow.' }] },
    );

    const first = await client.messages.create(baseRequest);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.model).toBe(DEFAULT_ACTOR_MODEL);
    expect(first.content).toEqual([
      { type: 'text', text: 'Checking.', citations: null },
      { type: 'tool_use', id: 'toolu_fake_a', name: 'lookup_order', input: { order_id: 'A-1042' }, caller: { type: 'direct' } },
    ]);
    expect(first.usage).toMatchObject({
      input_tokens: 300,
      output_tokens: 40,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 12,
    });

    const second = await client.messages.create({
      ...baseRequest,
      messages: [
        ...baseRequest.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_fake_a', content: '{"status":"packed"}' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'It ships tomorrow.', citations: null }]);
    expect(second.usage.output_tokens).toBeGreaterThan(0);

    expect(fake.messageRequests.map((r) => r.callIndex)).toEqual([0, 1]);
    expect(fake.messageRequests[1]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_fake_a', content: '{"status":"packed"}' }],
    });
  });

  it('records the request body and headers as sent', async () => {
    fake.enqueue({ content: [{ type: 'text', text: 'ok' }] });
    await client.messages.create(baseRequest);
    const [request] = fake.messageRequests;
    expect(request?.path).toBe('/v1/messages');
    // SDK 1.12 sends the API key as a bearer token; older ones used x-api-key.
    expect(request?.headers['x-api-key'] ?? request?.headers['authorization']).toMatch(/^(Bearer )?test$/);
    expect(request?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request?.body).toEqual({
      model: DEFAULT_ACTOR_MODEL,
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are the order desk.', cache_control: { type: 'ephemeral' } }],
      tools: [lookupOrder],
      tool_choice: { type: 'auto' },
      messages: [{ role: 'user', content: 'Where is order A-1042?' }],
    });
  });

  it('serves a recorded response verbatim, and lets a script choose by request', async () => {
    const recorded = recordedToolUseMessage();
    fake.respondWith((request, callIndex) =>
      request.body.model === DEFAULT_TRANSLATOR_MODEL
        ? { content: [{ type: 'text', text: `translated #${callIndex}` }] }
        : { recorded },
    );
    expect(await client.messages.create(baseRequest)).toEqual(recorded);
    const translated = await client.messages.create({ ...baseRequest, model: DEFAULT_TRANSLATOR_MODEL });
    expect(translated.content).toEqual([{ type: 'text', text: 'translated #1', citations: null }]);
  });

  it('does not make the SDK warn about a deprecated default model', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      fake.enqueue({ content: [{ type: 'text', text: 'a' }] }, { content: [{ type: 'text', text: 'b' }] });
      await client.messages.create(baseRequest);
      await client.messages.create({ ...baseRequest, model: DEFAULT_TRANSLATOR_MODEL });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});

describe('POST /v1/messages (stream)', () => {
  it('streams text and tool input deltas that the SDK assembles', async () => {
    fake.enqueue({
      content: [
        { type: 'text', text: 'Let me check that order for you right away.' },
        { type: 'tool_use', id: 'toolu_fake_s', name: 'lookup_order', input: { order_id: 'A-1042', include_items: true } },
      ],
      usage: { inputTokens: 500, outputTokens: 60, cacheReadInputTokens: 4096 },
    });
    const stream = client.messages.stream({ ...baseRequest, stream: true });
    const texts: string[] = [];
    const jsonSnapshots: unknown[] = [];
    stream.on('text', (delta) => texts.push(delta));
    stream.on('inputJson', (_partial, snapshot) => jsonSnapshots.push(snapshot));
    const message = await stream.finalMessage();

    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join('')).toBe('Let me check that order for you right away.');
    expect(jsonSnapshots.at(-1)).toEqual({ order_id: 'A-1042', include_items: true });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check that order for you right away.', citations: null },
      { type: 'tool_use', id: 'toolu_fake_s', name: 'lookup_order', input: { order_id: 'A-1042', include_items: true }, caller: { type: 'direct' } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 500, output_tokens: 60, cache_read_input_tokens: 4096, cache_creation_input_tokens: 0 });
    expect(fake.messageRequests[0]?.body.stream).toBe(true);
  });

  it('gives the same final message from a recorded message, its generated stream and the recorded stream', async () => {
    const recorded = recordedToolUseMessage();
    fake.enqueue({ recorded }, { recordedEvents: recordedToolUseStream() });
    const fromGenerated = await client.messages.stream(baseRequest).finalMessage();
    const fromRecorded = await client.messages.stream(baseRequest).finalMessage();
    // finalMessage() adds the SDK's own `parsed_output` field.
    expect(fromGenerated).toEqual({ ...recorded, parsed_output: null });
    expect(fromRecorded).toEqual({ ...recorded, parsed_output: null });
  });

  it('generates events of the recorded kinds, in the recorded order', () => {
    const kinds = (events: readonly { event: string }[]): string[] =>
      events.map((e) => e.event).filter((kind, i, all) => kind !== all[i - 1]);
    expect(kinds(streamEvents(recordedToolUseMessage()))).toEqual(kinds(recordedToolUseStream()));
  });

  it('surfaces an error event sent mid-stream', async () => {
    fake.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', midStream: true } });
    const failure: unknown = await client.messages
      .stream(baseRequest)
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).type).toBe('overloaded_error');
  });
});

describe('errors', () => {
  it('answers a scripted error as the SDK error class for its status', async () => {
    const body = recordedErrorBody('overloaded');
    fake.enqueue({ error: { status: 529, type: body.error.type, message: body.error.message, requestId: body.request_id } });
    const failure: unknown = await client.messages.create(baseRequest).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OverloadedError);
    const error = failure as APIError;
    expect(error.status).toBe(529);
    expect(error.type).toBe('overloaded_error');
    expect(error.requestID).toBe(body.request_id);
    expect(error.error).toEqual(body);
  });

  it('sends retry-after, which the SDK honours when it retries', async () => {
    const body = recordedErrorBody('rate-limit');
    fake.enqueue(
      { error: { status: 429, type: body.error.type, message: body.error.message, retryAfterSeconds: 0.01 } },
      { content: [{ type: 'text', text: 'after the retry' }] },
    );
    const retrying = new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 1 });
    const message = await retrying.messages.create(baseRequest);
    expect(message.content).toEqual([{ type: 'text', text: 'after the retry', citations: null }]);
    expect(fake.messageRequests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);

    fake.enqueue({ error: { status: 429, type: body.error.type, message: body.error.message, retryAfterSeconds: 7 } });
    const failure: unknown = await client.messages.create(baseRequest).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as APIError).headers?.get('retry-after')).toBe('7');
  });

  it('times out on a delayed reply and fails on a dropped connection', async () => {
    fake.enqueue({ delayMs: 300, content: [{ type: 'text', text: 'too late' }] }, { disconnect: true });
    const impatient = new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 0, timeout: 50 });
    await expect(impatient.messages.create(baseRequest)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    await expect(client.messages.create(baseRequest)).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('hangs until the client gives up, and cuts a stream after the given number of events', async () => {
    fake.enqueue({ hang: true });
    const impatient = new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 0, timeout: 100 });
    await expect(impatient.messages.create(baseRequest)).rejects.toBeInstanceOf(APIConnectionTimeoutError);

    fake.enqueue({ content: [{ type: 'text', text: 'a reply long enough to need several deltas' }], cutAfterEvents: 4 });
    const events: string[] = [];
    const stream = client.messages.stream(baseRequest);
    stream.on('streamEvent', (event) => events.push(event.type));
    const failure: unknown = await stream.finalMessage().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    // The SDK does not pass the `ping` (event 3) on.
    expect(events).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
  });

  it('refuses what the real API refuses', async () => {
    const post = (headers: Record<string, string>, body: unknown): Promise<Response> =>
      fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const noKey = await post({ 'anthropic-version': '2023-06-01' }, baseRequest);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const noVersion = await post({ 'x-api-key': 'test' }, baseRequest);
    expect(noVersion.status).toBe(400);
    const noMaxTokens = await post({ 'x-api-key': 'test', 'anthropic-version': '2023-06-01' }, { model: 'm', messages: [] });
    expect(await noMaxTokens.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
    expect(fake.messageRequests).toEqual([]);
    expect(fake.requests).toHaveLength(3);
    const keyless = new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 0, defaultHeaders: { 'x-api-key': null, authorization: null } });
    await expect(keyless.messages.create(baseRequest)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('answers an unscripted call with a 400 and records the problem', async () => {
    const failure: unknown = await client.messages.create(baseRequest).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BadRequestError);
    expect((failure as APIError).message).toContain('no reply scripted for call #0');
    expect(fake.problems).toEqual(['no reply scripted for call #0 (queue empty)']);
    fake.reset();
  });
});

describe('GET /v1/models', () => {
  it("lists switchboard's default models", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual([DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL]);
    expect(fake.requests[0]?.path).toMatch(/^\/v1\/models/);
  });
});
