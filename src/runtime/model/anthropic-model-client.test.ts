import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../../test/fakes/fake-anthropic.ts';
import type { FakeAnthropic, FakeSseEvent } from '../../../test/fakes/fake-anthropic-types.ts';
import { createAnthropicModelClient } from './anthropic-model-client.ts';
import type { ModelOutputBlock, ModelRequest } from './model-types.ts';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const request: ModelRequest = {
  model: 'claude-sonnet-5-5',
  maxTokens: 256,
  system: [{ type: 'text', text: 'Be brief.' }],
  tools: [{ name: 'respond', description: 'Answer.', input_schema: { type: 'object' } }],
  toolChoice: 'any',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};

/** A streamed answer that starts with a thinking block, which the runtime does not keep. */
function thinkingThenRespond(): FakeSseEvent[] {
  const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const input = JSON.stringify({ parts: [{ text: 'Hello.', metadata: { partType: 'response' } }], turnState: 'complete' });
  return [
    { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_fake_thinking', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null, stop_sequence: null, usage } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The person greets me.' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_fake_1', name: 'respond', input: {} } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: input } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

describe('the Anthropic model client', () => {
  it('numbers streamed blocks as the kept content is numbered, so early deliveries and processing agree', async () => {
    fake.enqueue({ recordedEvents: thinkingThenRespond() });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }) });
    const seen: [ModelOutputBlock, number][] = [];
    const response = await client.create(request, { onBlock: (block, index) => seen.push([block, index]) });
    expect(response.content).toHaveLength(1);
    expect(response.content[0]).toMatchObject({ type: 'tool_use', name: 'respond' });
    expect(seen.map(([block, index]) => [block.type, index])).toEqual([['tool_use', 0]]);
  });

  it('turns an API error into model.failed, retryable only for overload and server errors', async () => {
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }) });
    fake.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'bad' } });
    await expect(client.create(request)).rejects.toMatchObject({ code: 'model.failed', retryable: false });
    fake.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'busy' } });
    await expect(client.create(request)).rejects.toMatchObject({ code: 'model.failed', retryable: true });
  });
});

describe('the Anthropic model client in a provider storm', () => {
  const respondBlock = { type: 'tool_use' as const, name: 'respond', input: { parts: [{ text: 'Hello.', metadata: { partType: 'response' } }], turnState: 'complete' } };

  it('names the cause of each failure for the person (overloaded, rate limited, server error, rejected)', async () => {
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }) });
    const cases = [
      [{ status: 529, type: 'overloaded_error', message: 'Overloaded' }, 'overloaded', /overloaded/],
      [{ status: 429, type: 'rate_limit_error', message: 'Slow down', retryAfterSeconds: 30 }, 'rate_limited', /too many requests/],
      [{ status: 500, type: 'api_error', message: 'Internal server error' }, 'server_error', /internal error/],
      [{ status: 400, type: 'invalid_request_error', message: 'bad' }, 'rejected', /rejected the request/],
    ] as const;
    for (const [error, kind, text] of cases) {
      fake.enqueue({ error });
      const failure: unknown = await client.create(request).catch((thrown: unknown) => thrown);
      expect(failure).toMatchObject({ code: 'model.failed', details: { kind, status: error.status } });
      expect((failure as { details: { userMessage: string } }).details.userMessage).toMatch(text);
    }
  });

  it('makes the call again when the stream is cut mid-way before any block, and answers once', async () => {
    fake.reset();
    fake.enqueue({ content: [respondBlock], cutAfterEvents: 4 }, { content: [respondBlock] });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }), streamRetryDelayMs: 1 });
    const seen: ModelOutputBlock[] = [];
    const response = await client.create(request, { onBlock: (block) => seen.push(block) });
    expect(response.content).toHaveLength(1);
    expect(seen).toHaveLength(1);
    expect(fake.messageRequests).toHaveLength(2);
  });

  it('makes the call again after an overloaded_error event mid-stream', async () => {
    fake.reset();
    fake.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', midStream: true } }, { content: [respondBlock] });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }), streamRetryDelayMs: 1 });
    const response = await client.create(request);
    expect(response.content).toHaveLength(1);
    expect(fake.messageRequests).toHaveLength(2);
  });

  it('gives up on a stream that keeps breaking, naming a lost connection', async () => {
    fake.reset();
    fake.enqueue(...Array.from({ length: 3 }, () => ({ content: [respondBlock], cutAfterEvents: 4 })));
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }), streamRetryDelayMs: 1 });
    const failure: unknown = await client.create(request).catch((thrown: unknown) => thrown);
    expect(failure).toMatchObject({ code: 'model.failed', retryable: true, details: { kind: 'connection', attempts: 3 } });
    expect((failure as { details: { userMessage: string } }).details.userMessage).toMatch(/connection to the model was lost/);
    expect(fake.messageRequests).toHaveLength(3);
  });

  it('does not make the call again once a block was handed on, so nothing is delivered twice', async () => {
    fake.reset();
    const text = { type: 'text' as const, text: 'first block' };
    // message_start, block 0 start + ping + delta + stop: block 0 is complete, then the cut.
    fake.enqueue({ content: [text, respondBlock], cutAfterEvents: 5 });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }), streamRetryDelayMs: 1 });
    const seen: ModelOutputBlock[] = [];
    await expect(client.create(request, { onBlock: (block) => seen.push(block) })).rejects.toMatchObject({ details: { kind: 'connection', attempts: 1 } });
    expect(seen).toEqual([{ type: 'text', text: 'first block' }]);
    expect(fake.messageRequests).toHaveLength(1);
  });

  it('stops waiting to retry when the caller aborts, reporting the failure that led there', async () => {
    fake.reset();
    fake.enqueue({ content: [respondBlock], cutAfterEvents: 4 }, { content: [respondBlock] });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }), streamRetryDelayMs: 60_000 });
    const startedAt = Date.now();
    await expect(client.create(request, { signal: AbortSignal.timeout(200) })).rejects.toMatchObject({ retryable: true, details: { kind: 'connection', attempts: 1 } });
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(fake.messageRequests).toHaveLength(1);
  });

  it('does not make the call again when onBlock threw on a block, which it may have delivered in part', async () => {
    fake.reset();
    fake.enqueue({ content: [respondBlock] }, { content: [respondBlock] });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }), streamRetryDelayMs: 1 });
    const seen: ModelOutputBlock[] = [];
    const onBlock = (block: ModelOutputBlock): void => {
      seen.push(block);
      throw new Error('delivery failed part-way');
    };
    await expect(client.create(request, { onBlock })).rejects.toMatchObject({ code: 'model.failed', details: { attempts: 1 } });
    expect(seen).toHaveLength(1);
    expect(fake.messageRequests).toHaveLength(1);
  });

  it('names a timeout when the SDK gives up on a call that hangs', async () => {
    fake.reset();
    fake.enqueue({ hang: true });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0, timeout: 50 }) });
    const failure: unknown = await client.create(request).catch((thrown: unknown) => thrown);
    expect(failure).toMatchObject({ code: 'model.failed', retryable: true, details: { kind: 'timeout', attempts: 1 } });
    expect((failure as { details: { userMessage: string } }).details.userMessage).toMatch(/did not answer in time/);
  });

  it('stops at once when the caller aborts a call that hangs', async () => {
    fake.reset();
    fake.enqueue({ hang: true });
    const client = createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 2 }) });
    const startedAt = Date.now();
    await expect(client.create(request, { signal: AbortSignal.timeout(100) })).rejects.toMatchObject({ details: { kind: 'aborted', attempts: 1 } });
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(fake.messageRequests).toHaveLength(1);
  });
});
