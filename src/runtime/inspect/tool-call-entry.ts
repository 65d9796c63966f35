/**
 * The data of a `tool_call` log entry: which call, how it went, with what arguments (personal data
 * masked) and what it answered (masked too, and cut at 16 KB).
 */
import type { RegisteredTool } from '../../protocol/tools/tool-definition.ts';
import { maskPersonalData, maskPersonalDataText } from './personal-data.ts';

/** Longest tool result a `tool_call` entry keeps, in characters; longer ones end in `…`. */
export const TOOL_RESULT_CHARS = 16_384;

/** How a call went: the handler answered, threw, answered outside its output schema, or waits for a person. */
export type ToolCallOutcomeName = 'ok' | 'error' | 'invalid_output' | 'approval_required';

/** What a `tool_call` entry says. */
export interface ToolCallFacts {
  /** `<turnId>.<step>.<block>` while the actor loop runs the call; the model's tool_use id for a call run after its approval. */
  readonly callId: string;
  /** The model's tool_use id. */
  readonly toolUseId: string;
  readonly tool: Pick<RegisteredTool, 'name' | 'scope' | 'routing' | 'personalData'>;
  /** How long the handler ran, in ms (0 when it did not run). */
  readonly durationMs: number;
  readonly outcome: ToolCallOutcomeName;
  /** The arguments as validated; masked here. */
  readonly args: unknown;
  /** The handler's output as the model reads it. */
  readonly result?: string;
  readonly error?: string;
  /** The approval that released the call, or that it waits for. */
  readonly approvalId?: string;
  /** Why an approval is required (the policy's reason). */
  readonly reason?: string;
}

/**
 * `tool_call` data: `callId`, `toolUseId`, `tool`, `scope`, `routing`, `durationMs`, `outcome`,
 * `args` (personal data `•••`), and `result` (masked, at most 16 KB with `…`), `error`,
 * `approvalId` and `reason` when there are.
 */
export function toolCallData(facts: ToolCallFacts): Record<string, unknown> {
  const { tool, result } = facts;
  const masked = result === undefined ? undefined : maskPersonalDataText(result, tool.personalData);
  return {
    callId: facts.callId,
    toolUseId: facts.toolUseId,
    tool: tool.name,
    scope: tool.scope,
    routing: tool.routing,
    durationMs: facts.durationMs,
    outcome: facts.outcome,
    args: maskPersonalData(facts.args, tool.personalData),
    ...(masked === undefined ? {} : { result: masked.length > TOOL_RESULT_CHARS ? `${masked.slice(0, TOOL_RESULT_CHARS)}…` : masked }),
    ...(facts.error === undefined ? {} : { error: facts.error }),
    ...(facts.approvalId === undefined ? {} : { approvalId: facts.approvalId }),
    ...(facts.reason === undefined ? {} : { reason: facts.reason }),
  };
}
