import type Anthropic from '@anthropic-ai/sdk';
import { APIError } from '@anthropic-ai/sdk';
import { SwitchboardError } from '../../protocol/errors.ts';
import type { ModelCallOptions, ModelClient, ModelOutputBlock, ModelRequest, ModelResponse } from './model-types.ts';

/** Options of {@link createAnthropicModelClient}. */
export interface AnthropicModelClientOptions {
  /** A configured SDK client (API key, base URL, retries and timeout are its business). */
  readonly client: Anthropic;
}

function toOutputBlock(block: Anthropic.ContentBlock): ModelOutputBlock | undefined {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'tool_use') return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  return undefined;
}

/**
 * A {@link ModelClient} over the Anthropic SDK. Streams each call so that `onBlock` fires as each
 * content block completes; errors become `model.failed` (retryable for 429, 5xx and network errors).
 */
export function createAnthropicModelClient(options: AnthropicModelClientOptions): ModelClient {
  const { client } = options;
  return {
    async create(request: ModelRequest, callOptions: ModelCallOptions = {}): Promise<ModelResponse> {
      const params = {
        model: request.model,
        max_tokens: request.maxTokens,
        system: request.system.map((block) => ({ ...block })),
        tools: request.tools.map((tool) => ({ ...tool, input_schema: { type: 'object' as const, ...tool.input_schema } })),
        tool_choice: { type: request.toolChoice },
        messages: request.messages.map((message) => ({
          role: message.role,
          content: message.content.map((block) => ({ ...block })),
        })),
      } as Anthropic.MessageCreateParamsNonStreaming;
      try {
        const stream = client.messages.stream(params, callOptions.signal === undefined ? {} : { signal: callOptions.signal });
        let index = 0;
        // Indexes count only the blocks the response keeps, so they match `content` below.
        stream.on('contentBlock', (block) => {
          const converted = toOutputBlock(block);
          if (converted === undefined) return;
          callOptions.onBlock?.(converted, index);
          index += 1;
        });
        const message = await stream.finalMessage();
        const content = message.content.flatMap((block) => {
          const converted = toOutputBlock(block);
          return converted === undefined ? [] : [converted];
        });
        return {
          id: message.id,
          model: message.model,
          content,
          stopReason: message.stop_reason ?? 'end_turn',
          usage: {
            inputTokens: message.usage.input_tokens,
            outputTokens: message.usage.output_tokens,
            cacheReadInputTokens: message.usage.cache_read_input_tokens ?? 0,
            cacheCreationInputTokens: message.usage.cache_creation_input_tokens ?? 0,
          },
        };
      } catch (error) {
        const status = error instanceof APIError ? (error.status as number | undefined) : undefined;
        const retryable = status === undefined || status === 429 || status === 529 || status >= 500;
        throw new SwitchboardError('model.failed', `The model call failed${status === undefined ? '' : ` (HTTP ${status})`}.`, {
          cause: error,
          retryable,
          details: { status },
        });
      }
    },
  };
}
