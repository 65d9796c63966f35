import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineTool } from './define-tool.ts';
import type { RegisteredTool, ToolDefinition } from './tool-definition.ts';
import { createToolRegistry } from './tool-registry.ts';

interface BookingArgs {
  readonly totalCost: number;
}

describe('defineTool', () => {
  it('returns the definition unchanged and types the handler and policy', () => {
    const definition = defineTool<BookingArgs, { bookingId: string }>({
      name: 'book_flight',
      description: 'Book a flight.',
      scope: 'generalist',
      inputSchema: { type: 'object', properties: { totalCost: { type: 'number' } }, required: ['totalCost'] },
      requiresApproval: ({ args }) => args.totalCost >= 50,
      handler: ({ totalCost }) => ({ bookingId: `b-${totalCost}` }),
    });
    expectTypeOf(definition).toEqualTypeOf<ToolDefinition<BookingArgs, { bookingId: string }>>();
    const tool = createToolRegistry().register(definition);
    expectTypeOf(tool).toEqualTypeOf<RegisteredTool<BookingArgs, { bookingId: string }>>();
    expect(tool.name).toBe('book_flight');
  });

  it('is optional: a plain object literal registers too', () => {
    const tool = createToolRegistry().register({
      name: 'extract_dates',
      description: 'Extract dates inline.',
      scope: 'specialist',
      routing: 'bypass',
      justification: 'Private to the date extractor.',
      bypassRouting: { reason: 'Inline and latency-sensitive.' },
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args) => args,
    });
    expect(tool.routing).toBe('bypass');
  });

  it('does not type-check generalist + bypass', () => {
    const definition = {
      name: 'x',
      description: 'x',
      scope: 'generalist' as const,
      routing: 'bypass' as const,
      inputSchema: { type: 'object' as const },
      handler: () => null,
    };
    // @ts-expect-error generalist tools cannot bypass the router
    const typed: ToolDefinition = definition;
    expect(typed).toBe(definition);
  });
});
