/**
 * The `llm-context` translator over a {@link ModelClient}: one call to a fast model that turns the
 * actor's answer and the turn's data into dense analytical prose for a peer agent's LLM.
 */

import type { LlmContextInput, LlmContextTranslator } from '../../protocol/envelope/llm-context.ts';
import { SwitchboardError, toSwitchboardError } from '../../protocol/errors.ts';
import type { ModelClient, ModelRequest, ModelResponse, ModelTool } from './model-types.ts';

/** Options of {@link createModelTranslator}. */
export interface ModelTranslatorOptions {
  /** The model client (the Anthropic SDK client in production). */
  readonly model: ModelClient;
  /**
   * Model id, e.g. `DEFAULT_TRANSLATOR_MODEL` from `src/config/models.ts` (a fast, small model).
   * The app wiring picks it; this module has no default so that configuration stays in one place.
   */
  readonly modelName: string;
  /** Upper bound of the prose's length, in output tokens. Default 1024. */
  readonly maxOutputTokens?: number;
  /** How long the call may take before it is cut, in ms. Default 30000 (30 s). */
  readonly timeoutMs?: number;
}

/** Default of {@link ModelTranslatorOptions.maxOutputTokens}. */
export const DEFAULT_TRANSLATOR_MAX_OUTPUT_TOKENS = 1024;
/** Default of {@link ModelTranslatorOptions.timeoutMs}. */
export const DEFAULT_TRANSLATOR_TIMEOUT_MS = 30_000;

/** The one tool the model must call; its `text` is the prose. */
export const LLM_CONTEXT_TOOL_NAME = 'write_llm_context';

const SYSTEM_PROMPT = [
  'You brief another AI agent. That agent asked us a question; it will receive our answer to its user and the',
  'structured data behind it, and its own language model must decide what to do next. Write for that model,',
  'not for a person.',
  '',
  'Write dense analytical prose about the answer and the data: what was found, how the options compare',
  '(prices, times, trade-offs, totals), what stands out, what is missing or uncertain, and what the agent',
  'may want to ask or check next. Do not restate the data field by field: the agent has it. No greetings,',
  'no markdown headings, no lists unless they carry comparisons. Use the units and currencies of the data.',
  'Never invent facts that are not in the answer or the data.',
  '',
  `Give the prose by calling ${LLM_CONTEXT_TOOL_NAME} once.`,
].join('\n');

const TOOL: ModelTool = {
  name: LLM_CONTEXT_TOOL_NAME,
  description: "Gives the analytical prose for the peer agent's language model.",
  input_schema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The analytical prose.' } },
    required: ['text'],
  },
};

/** The user message: the answer and the data, each marked. */
function userText(input: LlmContextInput): string {
  const answer = input.responseText.trim().length > 0 ? input.responseText : '(no text answer)';
  const data = input.domainData === undefined ? '(no structured data)' : JSON.stringify(input.domainData);
  return `<answer>\n${answer}\n</answer>\n\n<data>\n${data}\n</data>`;
}

/** The request {@link createModelTranslator} makes for `input`. */
export function translatorRequest(input: LlmContextInput, modelName: string, maxOutputTokens: number): ModelRequest {
  return {
    model: modelName,
    maxTokens: maxOutputTokens,
    system: [{ type: 'text', text: SYSTEM_PROMPT }],
    tools: [TOOL],
    // The model must call the only tool there is: no free-text preamble to strip.
    toolChoice: 'any',
    messages: [{ role: 'user', content: [{ type: 'text', text: userText(input) }] }],
  };
}

/** The prose of a response: the tool call's `text`, else the text blocks joined. */
function proseOf(response: ModelResponse): string {
  for (const block of response.content) {
    if (block.type !== 'tool_use' || block.name !== LLM_CONTEXT_TOOL_NAME) continue;
    const text: unknown = typeof block.input === 'object' && block.input !== null ? (block.input as Record<string, unknown>)['text'] : undefined;
    if (typeof text === 'string' && text.trim().length > 0) return text.trim();
  }
  return response.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();
}

/**
 * An {@link LlmContextTranslator} that makes one model call per translation (wrap it in
 * `cacheTranslationsByTurn` so a turn is translated at most once).
 *
 * @throws (rejects) SwitchboardError `model.failed`: the model call failed (API error, timeout;
 *   the client's error is kept as is when it is already a `SwitchboardError`), or the model gave no
 *   prose (`details.reason: 'empty'`).
 *
 * @example
 * const translator = cacheTranslationsByTurn(
 *   createModelTranslator({ model: core.model, modelName: app.config.models?.llmContext ?? DEFAULT_TRANSLATOR_MODEL }),
 * );
 */
export function createModelTranslator(options: ModelTranslatorOptions): LlmContextTranslator {
  const maxOutputTokens = options.maxOutputTokens ?? DEFAULT_TRANSLATOR_MAX_OUTPUT_TOKENS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TRANSLATOR_TIMEOUT_MS;
  return {
    async translate(input: LlmContextInput): Promise<string> {
      const request = translatorRequest(input, options.modelName, maxOutputTokens);
      let response: ModelResponse;
      try {
        response = await options.model.create(request, { signal: AbortSignal.timeout(timeoutMs) });
      } catch (thrown) {
        throw toSwitchboardError(thrown, 'model.failed');
      }
      const prose = proseOf(response);
      if (prose.length === 0) {
        throw new SwitchboardError('model.failed', 'The llm-context model gave no prose.', {
          retryable: true,
          details: { reason: 'empty', model: response.model, stopReason: response.stopReason },
        });
      }
      return prose;
    },
  };
}
