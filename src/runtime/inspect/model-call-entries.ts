/**
 * The data of the `model_request` and `model_response` log entries: what was asked and what came
 * back, how long it took and what it cost. The full request and response go to the capture store
 * when capture is on; the log keeps the response's blocks too (`content`) then.
 */
import { RESPOND_TOOL_NAME } from '../../protocol/respond/respond-schema.ts';
import type { ModelOutputBlock, ModelRequest, ModelResponse } from '../model/model-types.ts';

/** Longest part text a `model_response` entry keeps, in characters. */
const PART_TEXT_CHARS = 500;

/** Longest JSON of a response's blocks the log keeps as `content`, in characters; longer ones stay in the capture only. */
const CONTENT_CHARS = 24_000;

/** One respond() part of a response, as the log keeps it. */
export interface LoggedPart {
  readonly partType: string;
  /** Its text, cut at 500 characters (with `…`). */
  readonly text?: string;
}

function cut(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parts of every respond() call of `content`, in order, read leniently (an invalid call gives what it has). */
export function respondParts(content: readonly ModelOutputBlock[]): LoggedPart[] {
  return content.flatMap((block) => {
    if (block.type !== 'tool_use' || block.name !== RESPOND_TOOL_NAME || !isRecord(block.input)) return [];
    const parts = block.input['parts'];
    if (!Array.isArray(parts)) return [];
    return parts.flatMap((part): LoggedPart[] => {
      if (!isRecord(part)) return [];
      const metadata = part['metadata'];
      const partType = isRecord(metadata) && typeof metadata['partType'] === 'string' ? metadata['partType'] : '';
      const text = part['text'];
      return [{ partType, ...(typeof text === 'string' ? { text: cut(text, PART_TEXT_CHARS) } : {}) }];
    });
  });
}

/** `model_request` data: the step, the model, how many messages, the tools' names, and `captured` when the capture has it whole. */
export function modelRequestData(step: number, request: ModelRequest, captured: boolean): Record<string, unknown> {
  return { step, model: request.model, messages: request.messages.length, tools: request.tools.map((tool) => tool.name), ...(captured ? { captured: true } : {}) };
}

/** How a response is logged beside what came back. */
export interface ResponseFacts {
  readonly step: number;
  /** Time from the call to the whole response, in ms. */
  readonly latencyMs: number;
  /** Estimated cost in USD; `undefined` for a model without a price (logged as 0 with `priced: false`). */
  readonly costUsd: number | undefined;
  /** The response's blocks (personal data masked) to keep in the log; only when capture is on. */
  readonly content?: readonly ModelOutputBlock[];
}

/**
 * `model_response` data: `step`, `id`, `model`, `stopReason`, `usage`, `latencyMs`, `costUsd`
 * (USD, to the micro-dollar), `blocks` (`text` or the tool's name, in order), `parts` (respond()
 * parts with their text) when there are any, and `content` (the blocks) when given and not too
 * long (`contentCut: true` otherwise).
 */
export function modelResponseData(response: ModelResponse, facts: ResponseFacts): Record<string, unknown> {
  const parts = respondParts(response.content);
  const content = facts.content === undefined ? undefined : JSON.stringify(facts.content).length <= CONTENT_CHARS ? facts.content : undefined;
  return {
    step: facts.step,
    id: response.id,
    model: response.model,
    stopReason: response.stopReason,
    usage: response.usage,
    latencyMs: facts.latencyMs,
    costUsd: facts.costUsd === undefined ? 0 : Math.round(facts.costUsd * 1_000_000) / 1_000_000,
    ...(facts.costUsd === undefined ? { priced: false } : {}),
    blocks: response.content.map((block) => (block.type === 'text' ? 'text' : block.name)),
    ...(parts.length === 0 ? {} : { parts }),
    ...(content === undefined ? {} : { content }),
    ...(facts.content !== undefined && content === undefined ? { contentCut: true } : {}),
  };
}
