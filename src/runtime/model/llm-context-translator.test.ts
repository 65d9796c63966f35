import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRANSLATOR_MODEL } from '../../config/models.ts';
import type { LlmContextInput } from '../../protocol/envelope/llm-context.ts';
import { SwitchboardError } from '../../protocol/errors.ts';
import { startFakeAnthropic } from '../../../test/fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../../../test/fakes/fake-anthropic-types.ts';
import { createAnthropicModelClient } from './anthropic-model-client.ts';
import { LLM_CONTEXT_TOOL_NAME, createModelTranslator } from './llm-context-translator.ts';
import type { ModelCallOptions, ModelClient, ModelOutputBlock, ModelRequest, ModelResponse } from './model-types.ts';

const input: LlmContextInput = {
  responseText: 'Two direct flights: EasyJet at €94, BA at €187.',
  domainData: { 'flight-results': { flights: [{ flightNumber: 'EZY8421', pricePerPerson: 94 }, { flightNumber: 'BA2043', pricePerPerson: 187 }] } },
  sessionId: 'ses_1',
  turnId: 'turn_1',
};

/** A model client that answers every call with `content` and records the requests. */
function stubModel(content: readonly ModelOutputBlock[] | Error) {
  const requests: [ModelRequest, ModelCallOptions | undefined][] = [];
  const model: ModelClient = {
    create(request, options) {
      requests.push([request, options]);
      if (content instanceof Error) return Promise.reject(content);
      const response: ModelResponse = {
        id: 'msg_1', model: request.model, content, stopReason: 'tool_use',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      };
      return Promise.resolve(response);
    },
  };
  return { model, requests };
}

const toolCall = (text: unknown): ModelOutputBlock => ({ type: 'tool_use', id: 'toolu_1', name: LLM_CONTEXT_TOOL_NAME, input: { text } });

describe('the model translator', () => {
  it('makes one call to the named model with the answer and the data, forcing its one tool, and returns the prose', async () => {
    const { model, requests } = stubModel([toolCall('  EasyJet is half the price of BA.  ')]);
    const translator = createModelTranslator({ model, modelName: 'claude-haiku-5-5', maxOutputTokens: 300 });
    await expect(translator.translate(input)).resolves.toBe('EasyJet is half the price of BA.');
    expect(requests).toHaveLength(1);
    const [request, options] = requests[0] ?? [];
    expect(request).toMatchObject({ model: 'claude-haiku-5-5', maxTokens: 300, toolChoice: 'any', tools: [{ name: LLM_CONTEXT_TOOL_NAME }] });
    const user = request?.messages[0]?.content[0];
    expect(user?.type === 'text' ? user.text : '').toContain('EasyJet at €94');
    expect(user?.type === 'text' ? user.text : '').toContain('"pricePerPerson":187');
    expect(request?.system[0]?.text).toMatch(/peer|another AI agent/);
    expect(options?.signal).toBeInstanceOf(AbortSignal);
  });

  it('reads text blocks when the model answered in text', async () => {
    const { model } = stubModel([{ type: 'text', text: 'BA is the civilised departure.' }]);
    await expect(createModelTranslator({ model, modelName: 'm' }).translate(input)).resolves.toBe('BA is the civilised departure.');
  });

  it.each([
    ['no content', []],
    ['an empty tool text', [toolCall('   ')]],
    ['a tool text that is not a string', [toolCall(42)]],
  ] as const)('rejects with model.failed when the model gives %s', async (_name, content) => {
    const { model } = stubModel(content);
    const failure: unknown = await createModelTranslator({ model, modelName: 'm' }).translate(input).catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(SwitchboardError);
    expect(failure).toMatchObject({ code: 'model.failed', details: { reason: 'empty' } });
  });

  it('turns whatever the client throws into a SwitchboardError model.failed', async () => {
    const { model } = stubModel(new Error('socket hang up'));
    const failure: unknown = await createModelTranslator({ model, modelName: 'm' }).translate(input).catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(SwitchboardError);
    expect(failure).toMatchObject({ code: 'model.failed', message: 'socket hang up' });
  });
});

describe('the model translator on the Anthropic SDK', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterAll(async () => {
    await fake.close();
  });
  const translator = () =>
    createModelTranslator({
      model: createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }) }),
      modelName: DEFAULT_TRANSLATOR_MODEL,
    });

  it('sends one request for the translator model and returns the tool call’s prose', async () => {
    fake.reset();
    fake.enqueue({ content: [{ type: 'tool_use', name: LLM_CONTEXT_TOOL_NAME, input: { text: 'EasyJet costs half; BA leaves later.' } }] });
    await expect(translator().translate(input)).resolves.toBe('EasyJet costs half; BA leaves later.');
    expect(fake.messageRequests).toHaveLength(1);
    const body = fake.messageRequests[0]?.body;
    expect(body?.model).toBe(DEFAULT_TRANSLATOR_MODEL);
    expect(body?.tool_choice).toEqual({ type: 'any' });
    expect(body?.tools).toEqual([expect.objectContaining({ name: LLM_CONTEXT_TOOL_NAME })]);
    expect(fake.problems).toEqual([]);
  });

  it('rejects with model.failed on an API error', async () => {
    fake.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    await expect(translator().translate(input)).rejects.toMatchObject({ code: 'model.failed', details: { kind: 'overloaded' } });
  });
});
