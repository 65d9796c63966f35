/**
 * A tool registry whose handlers can be stood in for: replays and evals answer tool calls from a
 * recording instead of running the app's handlers, while the definitions (schemas, approval
 * policies, routing) stay the app's own.
 */
import type { RegisteredTool, ToolArgs, ToolDefinition, ToolHandlerContext } from '../../src/protocol/tools/tool-definition.ts';
import { ToolRegistry } from '../../src/protocol/tools/tool-registry.ts';

/**
 * Answers one tool call in place of its handler: a promise of the output (a rejection is the
 * tool's failure), or `undefined` to let the real handler run.
 */
export type ToolStandIn = (tool: string, args: unknown, context: ToolHandlerContext) => Promise<unknown> | undefined;

/** A {@link ToolRegistry} whose handlers ask the current {@link ToolStandIn} first. */
export class StandInRegistry extends ToolRegistry {
  #standIn: ToolStandIn | undefined;

  /** Sets what answers tool calls from now on; `undefined` lets every handler run again. */
  standIn(standIn: ToolStandIn | undefined): void {
    this.#standIn = standIn;
  }

  /** Registers `definition` with its handler behind the stand-in (see {@link ToolRegistry.register}). */
  override register<TArgs = ToolArgs, TResult = unknown>(definition: ToolDefinition<TArgs, TResult>): RegisteredTool<TArgs, TResult> {
    const real = definition.handler;
    const handler = async (args: TArgs, context: ToolHandlerContext): Promise<TResult> => {
      const answer = this.#standIn?.(definition.name, args, context);
      return answer === undefined ? await real(args, context) : ((await answer) as TResult);
    };
    return super.register({ ...definition, handler });
  }
}
