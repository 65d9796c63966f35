/**
 * A model that answers from a script, for testing an app's actors without a model endpoint: each
 * model call the actor makes takes the next step of the script, in order.
 */
import { RESPOND_TOOL_NAME } from '../../src/protocol/respond/respond-schema.ts';
import type { ModelCallOptions, ModelClient, ModelMessage, ModelOutputBlock, ModelRequest, ModelResponse } from '../../src/runtime/model/model-types.ts';

/** What the model answers in one call: one block, or several (e.g. two tool calls at once). */
export type ModelReply = ModelOutputBlock | readonly ModelOutputBlock[];

/** A tool result the actor loop sent back to the model, as the step after the call sees it. */
export interface SeenToolResult {
  /** The tool the result belongs to (looked up from the call's id). */
  readonly name: string;
  /** The result as the model reads it: the tool's output as JSON (or its text), or the error message. */
  readonly content: string;
  readonly isError: boolean;
}

/** What a step written as a function sees of the model call it answers. */
export interface ScriptedCall {
  /** 0 for the first model call of this script, then 1, 2, … */
  readonly step: number;
  /** The system prompt the actor sent (its `system` from the actor file, with the runtime's additions). */
  readonly system: string;
  /** The names of the tools offered, `respond` included. */
  readonly tools: readonly string[];
  /** The whole conversation sent, oldest first. */
  readonly messages: readonly ModelMessage[];
  /** The tool results of the last message: what the tools answered to the previous step's calls. */
  readonly toolResults: readonly SeenToolResult[];
  /** The latest text a person (or the runtime) wrote in the conversation. */
  readonly lastText: string;
}

/** One step of a script: a fixed reply, or a function of the call that returns one. */
export type ScriptStep = ModelReply | ((call: ScriptedCall) => ModelReply | Promise<ModelReply>);

/** A part of a respond() call: the part type and its text and/or data. */
export interface RespondPartInput {
  readonly partType: string;
  readonly text?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

let calls = 0;

/** A tool call block, as the model would write it. */
export function callTool(name: string, input: Readonly<Record<string, unknown>>): ModelOutputBlock {
  calls += 1;
  return { type: 'tool_use', id: `toolu_script_${String(calls)}`, name, input };
}

/**
 * A respond() call: `parts` as `{ partType, text?, data? }`, the turn state, and the other fields of
 * respond() (`passTo`, `note`) as they are.
 *
 * @example
 * respond([{ partType: 'response', text: 'Booked: SB4K2M9Q.' }], 'complete')
 */
export function respond(parts: readonly RespondPartInput[], turnState: string, extra: Readonly<Record<string, unknown>> = {}): ModelOutputBlock {
  const wire = parts.map(({ partType, text, data }) => ({
    ...(text === undefined ? {} : { text }),
    ...(data === undefined ? {} : { data }),
    metadata: { partType },
  }));
  return callTool(RESPOND_TOOL_NAME, { parts: wire, turnState, ...extra });
}

/** A respond() call with one `response` part and turn state `complete`: the usual last step. */
export function answer(text: string): ModelOutputBlock {
  return respond([{ partType: 'response', text }], 'complete');
}

/** Why a scripted model call failed: the turn made more model calls than the script has steps. */
export class ScriptExhaustedError extends Error {
  /** How many steps the script had. */
  readonly used: number;

  constructor(used: number) {
    super(`The model script has ${String(used)} step${used === 1 ? '' : 's'} and the actor asked for another model call; add a step (every tool result needs a step after it, ending with respond()).`);
    this.name = 'ScriptExhaustedError';
    this.used = used;
  }
}

/** A {@link ModelClient} that plays scripts; give it each test's script with {@link ScriptedModel.load}. */
export interface ScriptedModel extends ModelClient {
  /** Replaces the script: the next model call takes its first step. */
  load(steps: readonly ScriptStep[]): void;
  /** How many steps of the loaded script were not used. */
  unused(): number;
  /** The error of the last call that found no step (or whose step threw), if any since `load`. */
  failure(): Error | undefined;
}

/** Makes a {@link ScriptedModel}, with no script loaded. */
export function createScriptedModel(): ScriptedModel {
  let steps: readonly ScriptStep[] = [];
  let next = 0;
  let failed: Error | undefined;
  const fail = (error: Error): never => {
    failed ??= error;
    throw error;
  };
  return {
    load(script) {
      steps = script;
      next = 0;
      failed = undefined;
    },
    unused: () => steps.length - next,
    failure: () => failed,
    async create(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
      const step = next;
      const scripted = steps[step];
      if (scripted === undefined) return fail(new ScriptExhaustedError(steps.length));
      next += 1;
      let reply: ModelReply;
      try {
        reply = typeof scripted === 'function' ? await scripted(scriptedCall(request, step)) : scripted;
      } catch (error) {
        return fail(error instanceof Error ? error : new Error(String(error)));
      }
      const content = Array.isArray(reply) ? (reply as readonly ModelOutputBlock[]) : [reply as ModelOutputBlock];
      content.forEach((block, index) => options?.onBlock?.(block, index));
      return { id: `msg_script_${String(step)}`, model: request.model, content, stopReason: 'tool_use', usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 } };
    },
  };
}

/** What a function step sees of `request`. */
function scriptedCall(request: ModelRequest, step: number): ScriptedCall {
  const names = new Map<string, string>();
  for (const message of request.messages) {
    for (const block of message.content) if (block.type === 'tool_use') names.set(block.id, block.name);
  }
  const last = request.messages.at(-1);
  const toolResults = (last?.role === 'user' ? last.content : []).flatMap((block) =>
    block.type === 'tool_result' ? [{ name: names.get(block.tool_use_id) ?? '', content: block.content, isError: block.is_error === true }] : [],
  );
  const texts = request.messages.filter((message) => message.role === 'user').flatMap((message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])));
  return {
    step,
    system: request.system.map((block) => block.text).join('\n'),
    tools: request.tools.map((tool) => tool.name),
    messages: request.messages,
    toolResults,
    lastText: texts.at(-1) ?? '',
  };
}
