import type { RegisteredTool, ToolArgs, ToolHandlerContext } from '../../protocol/tools/tool-definition.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { maskPersonalData } from '../inspect/personal-data.ts';
import { toolCallData, type ToolCallFacts } from '../inspect/tool-call-entry.ts';
import type { ModelInputBlock } from '../model/model-types.ts';
import type { ToolRouter } from '../router/tool-router.ts';
import type { EventLog } from '../session/event-log.ts';
import type { TurnDataEvent } from '../session/turn-record.ts';
import { gateTaintedTurn, toolReadInWords } from './tainted-turn.ts';
import { markUntrusted } from './untrusted-content.ts';

/** What running one tool call produced. */
export interface ToolCallOutcome {
  /** The tool_result for the model. */
  readonly result: Extract<ModelInputBlock, { type: 'tool_result' }>;
  /** Set when a terminal tool succeeded: its output, which becomes the answer. */
  readonly terminalOutput?: string;
  /** Domain data the tool returned, for the envelope. */
  readonly dataEvent?: TurnDataEvent;
  /**
   * Set when the call needs a person's approval and none was given: the handler did not run, and
   * `result` is only a placeholder the runtime replaces once the approval is decided.
   */
  readonly approvalRequired?: { readonly args: ToolArgs; readonly reason: string };
  /** Set when a `readsUntrusted` tool succeeded: what the turn read, in words (`result of fetch_page`). */
  readonly untrustedRead?: string;
}

/** What a tool call needs. */
export interface ToolCallDeps {
  readonly registry: ToolRegistry;
  readonly router: ToolRouter;
  readonly log: EventLog;
  readonly now: () => number;
}

/** Longest tool output kept in a specialist_execution record, in characters. */
const RECORDED_RESULT_CHARS = 2000;

function errorResult(toolUseId: string, message: string): ToolCallOutcome {
  return { result: { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: message } };
}

/**
 * Domain data in a tool's output: an object with `domainData: { kind: string, data: object }`.
 * Tools return that shape to have their data collected into the turn's `domain-data` part.
 */
export function domainDataOf(output: unknown, source: string): TurnDataEvent | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const candidate = (output as { domainData?: unknown }).domainData;
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  const { kind, data } = candidate as { kind?: unknown; data?: unknown };
  if (typeof kind !== 'string' || typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  return { kind, data: data as Record<string, unknown>, source };
}

/**
 * The answer a terminal tool's output makes: a string as it is; the `text` of an object that has
 * one (so a terminal tool can return `{ text, domainData }`: the text answers, the data goes into
 * the envelope); otherwise the output's JSON.
 */
export function terminalAnswerOf(output: unknown, content: string): string {
  if (typeof output === 'object' && output !== null) {
    const text = (output as { text?: unknown }).text;
    if (typeof text === 'string') return text;
  }
  return content;
}

/**
 * Runs one model tool call against the actor's tools: checks the name and the arguments, applies the
 * approval policy (in a turn that read outside content, `untrustedReads` in words, as
 * `gateTaintedTurn` says), dispatches through the router (generalist, routed specialist) or inline
 * (bypass specialist), checks the output, and logs the call. A `readsUntrusted` tool's result is
 * marked as outside content. Every failure becomes an error tool result for the model; nothing
 * here throws for bad model input or a failing handler.
 */
export async function runToolCall(
  deps: ToolCallDeps,
  tools: ReadonlyMap<string, RegisteredTool>,
  call: { readonly id: string; readonly name: string; readonly input: unknown },
  context: ToolHandlerContext,
  untrustedReads: readonly string[] = [],
): Promise<ToolCallOutcome> {
  const logEntry = (type: 'tool_call' | 'specialist_execution' | 'protocol_violation', data: Record<string, unknown>): Promise<string> =>
    deps.log.append(context.sessionId, { type, turnId: context.turnId, actor: context.actorName, data });

  const tool = tools.get(call.name);
  if (tool === undefined) {
    const known = [...tools.keys()];
    await logEntry('protocol_violation', { kind: 'unknown_tool', tool: call.name });
    return errorResult(
      call.id,
      `There is no tool named "${call.name}" for you. Your tools: respond${known.length > 0 ? `, ${known.join(', ')}` : ''}.`,
    );
  }
  const args = deps.registry.validateArguments(tool.name, call.input);
  if (!args.ok) {
    await logEntry('protocol_violation', { kind: 'invalid_arguments', tool: tool.name, issues: args.issues });
    return errorResult(call.id, args.message);
  }
  // What every tool_call entry of this call says (see tool-call-entry.ts).
  const facts = (rest: Pick<ToolCallFacts, 'durationMs' | 'outcome'> & Partial<ToolCallFacts>): Record<string, unknown> => {
    const approvalId = context.approvalDecision?.approvalId;
    return toolCallData({ callId: context.callId ?? call.id, toolUseId: call.id, tool, args: args.value, ...(approvalId === undefined ? {} : { approvalId }), ...rest });
  };
  const approval = gateTaintedTurn(tool, await deps.registry.evaluateApproval(tool.name, args.value, context), untrustedReads);
  if (approval.required && context.approvalDecision?.decision !== 'granted') {
    await logEntry('tool_call', facts({ durationMs: 0, outcome: 'approval_required', reason: approval.reason }));
    return { ...errorResult(call.id, `"${tool.name}" is waiting for a person's approval.`), approvalRequired: { args: args.value, reason: approval.reason } };
  }

  const started = deps.now();
  let output: unknown;
  try {
    output = tool.routing === 'bypass' ? await tool.handler(args.value, context) : await deps.router.dispatch(tool, args.value, context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await logEntry('tool_call', facts({ durationMs: deps.now() - started, outcome: 'error', error: message }));
    return errorResult(call.id, `The tool "${tool.name}" failed: ${message}`);
  }
  const durationMs = deps.now() - started;
  const checked = deps.registry.validateOutput(tool.name, output);
  const content = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  const outcome = checked.ok ? 'ok' : 'invalid_output';
  await logEntry('tool_call', facts({ durationMs, outcome, result: content, ...(checked.ok ? {} : { error: checked.message }) }));
  if (tool.scope === 'specialist') {
    await logEntry('specialist_execution', {
      tool: tool.name, scope: tool.scope, routing: tool.routing, durationMs, outcome,
      args: maskPersonalData(args.value, tool.personalData),
      result: content.length > RECORDED_RESULT_CHARS ? `${content.slice(0, RECORDED_RESULT_CHARS)}…` : content,
      ...(tool.routing === 'bypass' ? { bypassReason: tool.bypassRouting.reason } : {}),
    });
  }
  if (!checked.ok) return errorResult(call.id, checked.message);
  const dataEvent = domainDataOf(output, tool.name);
  return {
    result: { type: 'tool_result', tool_use_id: call.id, content: tool.readsUntrusted ? markUntrusted(content, { source: 'tool', tool: tool.name }) : content },
    ...(tool.terminal ? { terminalOutput: terminalAnswerOf(output, content) } : {}),
    ...(dataEvent === undefined ? {} : { dataEvent }),
    ...(tool.readsUntrusted ? { untrustedRead: toolReadInWords(tool.name) } : {}),
  };
}
