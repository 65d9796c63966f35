/**
 * One tool, tested the way the runtime calls it: registered in a real registry (so a definition the
 * service would refuse fails here too), its arguments and output checked against its schemas, and
 * its approval policy evaluated.
 */
import type { ToolArgs, ToolDefinition, ToolHandlerContext, RegisteredTool } from '../../src/protocol/tools/tool-definition.ts';
import { createToolHandlerContext, type ToolHandlerContextInput } from '../../src/protocol/tools/tool-handler-context.ts';
import { createToolRegistry } from '../../src/protocol/tools/tool-registry.ts';

/** What {@link toolContext} accepts: every field optional. */
export type ToolContextInput = Partial<Omit<ToolHandlerContextInput, 'delegation'>>;

/**
 * A handler context for calling a tool directly in a test. Defaults: actor `test-actor`, session
 * `test-session`, turn `test-turn`.
 */
export function toolContext(input: ToolContextInput = {}): ToolHandlerContext {
  return createToolHandlerContext({ actorName: 'test-actor', sessionId: 'test-session', turnId: 'test-turn', ...input });
}

/** A tool under test; see {@link testTool}. */
export interface TestedTool<TArgs, TResult> {
  /** The tool as the registry holds it (normalised: `scope`, `routing`, `terminal` filled in). */
  readonly tool: RegisteredTool<TArgs, TResult>;
  /**
   * Calls the tool as the actor loop does: checks `args` against the input schema, runs the
   * handler, checks its output. Rejects with the message the model would get when a check fails.
   * Runs even when the call would need approval (see {@link TestedTool.needsApproval}).
   */
  call(args: unknown, context?: ToolContextInput): Promise<TResult>;
  /** Whether a call with `args` waits for a person's approval, and why (the audit line). */
  needsApproval(args: unknown, context?: ToolContextInput): Promise<{ readonly required: boolean; readonly reason: string; readonly source: 'static' | 'expression' | 'function' }>;
  /** The model's error for `args` when they do not match the input schema; `undefined` when they do. */
  argumentError(args: unknown): string | undefined;
  /** The error for `output` when it does not match the output schema; `undefined` when it does (or there is none). */
  outputError(output: unknown): string | undefined;
}

/**
 * Registers `definition` in a fresh registry and returns it ready to call.
 *
 * @throws SwitchboardError `tool.invalid_definition` when the service would refuse the definition.
 *
 * @example
 * const time = testTool(localTime);
 * assert.equal((await time.call({ timezone: 'Asia/Tokyo' })).timezone, 'Asia/Tokyo');
 * assert.match(time.argumentError({}) ?? '', /timezone/);
 */
export function testTool<TArgs, TResult>(definition: ToolDefinition<TArgs, TResult>): TestedTool<TArgs, TResult> {
  const registry = createToolRegistry();
  const tool = registry.register(definition);
  const checkedArgs = (args: unknown): ToolArgs => {
    const checked = registry.validateArguments(tool.name, args);
    if (!checked.ok) throw new Error(checked.message);
    return checked.value;
  };
  return {
    tool,
    async call(args, context) {
      const output = await tool.handler(checkedArgs(args) as TArgs, toolContext(context));
      const checked = registry.validateOutput(tool.name, output);
      if (!checked.ok) throw new Error(checked.message);
      return output;
    },
    async needsApproval(args, context) {
      const requirement = await registry.evaluateApproval(tool.name, checkedArgs(args), toolContext(context));
      return { required: requirement.required, reason: requirement.reason, source: requirement.source };
    },
    argumentError(args) {
      const checked = registry.validateArguments(tool.name, args);
      return checked.ok ? undefined : checked.message;
    },
    outputError(output) {
      const checked = registry.validateOutput(tool.name, output);
      return checked.ok ? undefined : checked.message;
    },
  };
}
