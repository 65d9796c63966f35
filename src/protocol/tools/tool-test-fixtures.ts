/** Shared fixtures of the tool registry tests (not a test file itself). */
import { SwitchboardError } from '../errors.ts';
import type { RegisteredTool, ToolDefinition, ToolHandlerContext } from './tool-definition.ts';
import { createToolHandlerContext } from './tool-handler-context.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** A valid generalist definition as a plain object; `overrides` replace or add fields. */
export function plainTool(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'task_get',
    description: 'Get one task by id.',
    scope: 'generalist',
    inputSchema: {
      type: 'object',
      properties: { taskId: { type: 'string' } },
      required: ['taskId'],
      additionalProperties: false,
    },
    handler: (args: unknown) => ({ echoed: args }),
    ...overrides,
  };
}

/** Registers anything, bypassing the static types, as a plain JavaScript caller would. */
export function registerRaw(registry: ToolRegistry, definition: unknown): RegisteredTool {
  return registry.register(definition as ToolDefinition);
}

/** The SwitchboardError `fn` throws; fails the test when it throws nothing or something else. */
export function thrownBy(fn: () => unknown): SwitchboardError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw new Error(`expected a SwitchboardError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a SwitchboardError, nothing was thrown');
}

/** A handler context with every identity field set. */
export function sampleContext(overrides: Partial<Parameters<typeof createToolHandlerContext>[0]> = {}): ToolHandlerContext {
  return createToolHandlerContext({
    actorName: 'triage',
    sessionId: 'session-1',
    turnId: 'turn-1',
    userId: 'user-1',
    personId: 'person-1',
    tenantId: 'tenant-1',
    ...overrides,
  });
}
