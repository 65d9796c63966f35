import type Anthropic from '@anthropic-ai/sdk';
import { setTimeout as sleep } from 'node:timers/promises';
import { SwitchboardError } from '../../protocol/errors.ts';
import { classifyModelFailure } from './model-failure.ts';
import type { ModelCallOptions, ModelClient, ModelOutputBlock, ModelRequest, ModelResponse } from './model-types.ts';

/** Options of {@link createAnthropicModelClient}. */
export interface AnthropicModelClientOptions {
  /**
   * A configured SDK client. API key, base URL, the request timeout and the retries of a request
   * the API refused (429, 5xx, 529, no connection) are its business.
   */
  readonly client: Anthropic;
  /**
   * How many times a call is made again when its stream broke after the API accepted it (the
   * connection cut mid-way, or an `overloaded_error` / `api_error` event mid-stream), which the
   * SDK does not retry. Only while no content block has been handed to `onBlock`, so nothing is
   * delivered twice. Default 2.
   */
  readonly streamRetries?: number;
  /** Wait before each such retry, in ms, doubled each time. Default 500. */
  readonly streamRetryDelayMs?: number;
}

/** Default of {@link AnthropicModelClientOptions.streamRetries}. */
const DEFAULT_STREAM_RETRIES = 2;
/** Default of {@link AnthropicModelClientOptions.streamRetryDelayMs}. */
const DEFAULT_STREAM_RETRY_DELAY_MS = 500;

function toOutputBlock(block: Anthropic.ContentBlock): ModelOutputBlock | undefined {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'tool_use') return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  return undefined;
}

/** How one streamed attempt ended, when it threw. */
interface StreamFailure {
  readonly error: unknown;
  /** The API accepted the request (answered 200) before the stream broke. */
  readonly connected: boolean;
  /** Content blocks were handed to `onBlock` before it broke. */
  readonly delivered: boolean;
}

function toParams(request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    system: request.system.map((block) => ({ ...block })),
    tools: request.tools.map((tool) => ({ ...tool, input_schema: { type: 'object' as const, ...tool.input_schema } })),
    tool_choice: { type: request.toolChoice },
    messages: request.messages.map((message) => ({
      role: message.role,
      content: message.content.map((block) => ({ ...block })),
    })),
  };
}

function toResponse(message: Anthropic.Message): ModelResponse {
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
}

/** The request options that carry the caller's abort signal, if any. */
function signalOption(signal: AbortSignal | undefined): { readonly signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

/** Waits `delayMs` before a retry; `false` when `signal` aborted (before or while waiting). */
async function waitToRetry(delayMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(delayMs, undefined, signalOption(signal));
    return true;
  } catch {
    return false;
  }
}

/** One streamed attempt: the final message, or how it failed. */
async function streamOnce(
  client: Anthropic,
  params: Anthropic.MessageCreateParamsNonStreaming,
  callOptions: ModelCallOptions,
): Promise<{ readonly message: Anthropic.Message } | StreamFailure> {
  let connected = false;
  let index = 0;
  const stream = client.messages.stream(params, signalOption(callOptions.signal));
  stream.on('connect', () => {
    connected = true;
  });
  // Indexes count only the blocks the response keeps, so they match `content` of the response.
  // A block counts as handed on before `onBlock` runs: one it threw on may have been delivered.
  stream.on('contentBlock', (block) => {
    const converted = toOutputBlock(block);
    if (converted === undefined) return;
    index += 1;
    callOptions.onBlock?.(converted, index - 1);
  });
  try {
    return { message: await stream.finalMessage() };
  } catch (error) {
    return { error, connected, delivered: index > 0 };
  }
}

/**
 * A {@link ModelClient} over the Anthropic SDK. Streams each call so that `onBlock` fires as each
 * content block completes. A stream that breaks after the API accepted the call, before any block
 * was handed on, is made again (see {@link AnthropicModelClientOptions.streamRetries}). Errors
 * become `model.failed`, with `details.kind` (see `classifyModelFailure`), `status`, and a
 * `userMessage` that names the cause for the person; retryable unless the API rejected the call.
 */
export function createAnthropicModelClient(options: AnthropicModelClientOptions): ModelClient {
  const { client } = options;
  const streamRetries = options.streamRetries ?? DEFAULT_STREAM_RETRIES;
  const retryDelayMs = options.streamRetryDelayMs ?? DEFAULT_STREAM_RETRY_DELAY_MS;
  return {
    async create(request: ModelRequest, callOptions: ModelCallOptions = {}): Promise<ModelResponse> {
      const params = toParams(request);
      for (let attempt = 0; ; attempt += 1) {
        const outcome = await streamOnce(client, params, callOptions);
        if ('message' in outcome) return toResponse(outcome.message);
        const failure = classifyModelFailure(outcome.error);
        const again = outcome.connected && !outcome.delivered && failure.retryable && attempt < streamRetries;
        // Aborted before or while waiting: report the failure that led here.
        if (again && (await waitToRetry(retryDelayMs * 2 ** attempt, callOptions.signal))) continue;
        const { kind, status, apiType, retryable, userMessage } = failure;
        const said = status === undefined ? (apiType === undefined ? '' : ` (${apiType})`) : ` (HTTP ${status})`;
        throw new SwitchboardError('model.failed', `The model call failed${said}: ${kind}.`, {
          cause: outcome.error,
          retryable,
          details: { status, kind, apiType, attempts: attempt + 1, userMessage },
        });
      }
    },
  };
}
