import type { ToolArgs, ToolDefinition } from './tool-definition.ts';

/**
 * Returns `definition` unchanged; only lets TypeScript infer or check the argument and result types
 * of the handler and of a policy function. Optional: `ToolRegistry.register` takes plain objects.
 *
 * @example
 * const bookFlight = defineTool<{ totalCost: number }, { bookingId: string }>({
 *   name: 'book_flight',
 *   description: 'Book a flight.',
 *   scope: 'generalist',
 *   inputSchema: { type: 'object', properties: { totalCost: { type: 'number' } }, required: ['totalCost'] },
 *   requiresApproval: { autoApproveIf: 'args.totalCost < 50' },
 *   handler: async ({ totalCost }) => book(totalCost),
 * });
 */
export function defineTool<TArgs = ToolArgs, TResult = unknown>(
  definition: ToolDefinition<TArgs, TResult>,
): ToolDefinition<TArgs, TResult> {
  return definition;
}
