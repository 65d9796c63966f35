import type {
  ContentBlock,
  Message,
  MessageCreateParams,
  RawMessageStreamEvent,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import type { FakeMessageReply, FakeSseEvent } from './fake-anthropic-types.ts';

/** Rough token count of a JSON value: a quarter of its serialised length, at least 1. */
function roughTokens(value: object): number {
  return Math.max(1, Math.ceil(JSON.stringify(value).length / 4));
}

/** Builds the wire `Message` for a scripted reply to a request. */
export function buildMessage(reply: FakeMessageReply, request: MessageCreateParams, callIndex: number): Message {
  const call = callIndex + 1;
  const content = reply.content.map((block, index): ContentBlock =>
    block.type === 'text'
      ? { type: 'text', text: block.text, citations: null }
      : {
          type: 'tool_use',
          id: block.id ?? `toolu_fake_${call}_${index}`,
          name: block.name,
          input: block.input,
          caller: { type: 'direct' },
        },
  );
  const hasToolUse = content.some((block) => block.type === 'tool_use');
  const cacheCreation = reply.usage?.cacheCreationInputTokens ?? 0;
  const usage: Usage = {
    input_tokens:
      reply.usage?.inputTokens ?? roughTokens({ system: request.system, messages: request.messages, tools: request.tools }),
    output_tokens: reply.usage?.outputTokens ?? roughTokens(content),
    cache_read_input_tokens: reply.usage?.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: cacheCreation,
    cache_creation: { ephemeral_5m_input_tokens: cacheCreation, ephemeral_1h_input_tokens: 0 },
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
    speed: null,
  };
  return {
    id: reply.id ?? `msg_fake_${String(call).padStart(4, '0')}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? request.model,
    content,
    stop_reason: reply.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage,
  };
}

/** Splits `text` into pieces of about `size` characters, keeping at least one piece. */
function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length === 0 ? [''] : pieces;
}

/** Characters per text or JSON delta. */
const DELTA_CHARS = 12;

function sse(data: RawMessageStreamEvent | { type: 'ping' }): FakeSseEvent {
  return { event: data.type, data };
}

/**
 * Cuts a complete `Message` into the event sequence the streaming API sends: `message_start`
 * (empty content, no stop reason), per block `content_block_start` / `content_block_delta`
 * (`text_delta` or `input_json_delta`, the first JSON delta empty as the API sends it) /
 * `content_block_stop`, a `ping` right after the first block starts, `message_delta` with the stop
 * reason and final usage, and `message_stop`.
 */
export function streamEvents(message: Message): FakeSseEvent[] {
  const { usage } = message;
  const events: FakeSseEvent[] = [
    sse({
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  message.content.forEach((block, index) => {
    const first = events.length;
    if (block.type === 'text') {
      events.push(sse({ type: 'content_block_start', index, content_block: { ...block, text: '' } }));
      for (const text of chunks(block.text, DELTA_CHARS)) {
        events.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
      }
    } else if (block.type === 'tool_use') {
      events.push(sse({ type: 'content_block_start', index, content_block: { ...block, input: {} } }));
      for (const partial_json of ['', ...chunks(JSON.stringify(block.input), DELTA_CHARS)]) {
        events.push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }));
      }
    } else if (block.type !== 'thinking') {
      events.push(sse({ type: 'content_block_start', index, content_block: block }));
    } else {
      events.push(sse({ type: 'content_block_start', index, content_block: { ...block, thinking: '', signature: '' } }));
      events.push(sse({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }));
      events.push(sse({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }));
    }
    events.push(sse({ type: 'content_block_stop', index }));
    // The API sends one ping right after the first block starts.
    if (index === 0) events.splice(first + 1, 0, sse({ type: 'ping' }));
  });
  events.push(
    sse({
      type: 'message_delta',
      delta: {
        stop_reason: message.stop_reason,
        stop_sequence: message.stop_sequence,
        stop_details: message.stop_details,
        container: message.container,
      },
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens_details: usage.output_tokens_details,
        server_tool_use: usage.server_tool_use,
      },
    }),
    sse({ type: 'message_stop' }),
  );
  return events;
}

/** The JSON error body the API sends, `{ type: 'error', error: { type, message }, request_id }`. */
export interface ApiErrorBody {
  readonly type: 'error';
  readonly error: { readonly type: string; readonly message: string };
  readonly request_id: string;
}

/** Builds an {@link ApiErrorBody}. */
export function errorBody(type: string, message: string, requestId: string): ApiErrorBody {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** Serialises one event in SSE framing. */
export function formatSse(event: FakeSseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
