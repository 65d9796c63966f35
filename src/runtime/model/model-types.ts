/**
 * The slice of the Anthropic Messages API the actor loop speaks, in switchboard's own types, so the
 * loop can be driven by any {@link ModelClient}: the Anthropic SDK in production, a script in tests.
 */

/** Marks the end of a prompt prefix the API should cache. */
export interface CacheControl {
  readonly type: 'ephemeral';
}

/** A block of a message sent to the model. */
export type ModelInputBlock =
  | { readonly type: 'text'; readonly text: string; readonly cache_control?: CacheControl }
  | {
      readonly type: 'tool_use';
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
      readonly cache_control?: CacheControl;
    }
  | {
      readonly type: 'tool_result';
      readonly tool_use_id: string;
      readonly content: string;
      readonly is_error?: boolean;
      readonly cache_control?: CacheControl;
    };

/** One message of the conversation sent to the model. */
export interface ModelMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly ModelInputBlock[];
}

/** A tool as the model sees it. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
  readonly cache_control?: CacheControl;
}

/** One model call. */
export interface ModelRequest {
  /** Model id, e.g. `claude-sonnet-5-5`. */
  readonly model: string;
  /** Upper bound of output tokens for this call. */
  readonly maxTokens: number;
  /** System prompt blocks (the last one usually carries the cache breakpoint). */
  readonly system: readonly { readonly type: 'text'; readonly text: string; readonly cache_control?: CacheControl }[];
  readonly tools: readonly ModelTool[];
  /** `any`: the model must call some tool, so it cannot answer in free text. */
  readonly toolChoice: 'any' | 'auto';
  readonly messages: readonly ModelMessage[];
}

/** A block of the model's answer. */
export type ModelOutputBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown };

/** Token usage of one call, as the API reports it. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Tokens read from the prompt cache. */
  readonly cacheReadInputTokens: number;
  /** Tokens written to the prompt cache. */
  readonly cacheCreationInputTokens: number;
}

/** The model's answer to one call. */
export interface ModelResponse {
  readonly id: string;
  readonly model: string;
  readonly content: readonly ModelOutputBlock[];
  readonly stopReason: string;
  readonly usage: ModelUsage;
}

/** Options of one call. */
export interface ModelCallOptions {
  /** Aborts the call (turn deadline, lost session lock). */
  readonly signal?: AbortSignal;
  /**
   * Called as soon as each content block is complete, before the rest of the answer arrives, so
   * an early respond(ack) reaches the person while the model is still writing.
   */
  readonly onBlock?: (block: ModelOutputBlock, index: number) => void;
}

/** Anything that answers model calls. */
export interface ModelClient {
  create(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}
