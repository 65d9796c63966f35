import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../errors.ts';
import { createToolRegistry } from './tool-registry.ts';
import { plainTool, registerRaw, sampleContext } from './tool-test-fixtures.ts';

/** Tools whose input schemas use most of what the model's arguments are checked with. */
const registry = createToolRegistry();
registerRaw(registry, plainTool());
registerRaw(registry, plainTool({ name: 'book_flight', inputSchema: { type: 'object', properties: { totalCost: { type: 'number' }, note: { type: 'string' } } }, requiresApproval: { autoApproveIf: "args.totalCost < 50 && ctx.tenantId == 'tenant-1'" } }));
registerRaw(registry, plainTool({
  name: 'plan_trip',
  inputSchema: {
    type: 'object',
    required: ['stops'],
    additionalProperties: false,
    properties: {
      stops: { type: 'array', minItems: 1, maxItems: 5, uniqueItems: true, items: { type: 'object', required: ['city'], properties: { city: { type: 'string', pattern: '^[A-Z]' }, nights: { type: 'integer', minimum: 0 } } } },
      mode: { enum: ['rail', 'air', null] },
      budget: { type: ['number', 'null'], exclusiveMinimum: 0 },
      tags: { type: 'object', propertyNames: { maxLength: 8 }, additionalProperties: { type: 'boolean' } },
    },
  },
  requiresApproval: { autoApproveIf: 'size(args.stops) < 3' },
}));
const TOOLS = ['task_get', 'book_flight', 'plan_trip'];
const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Any code point (fast-check's `unit: 'binary'` takes 0.6 s to build). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
const anything = fc.anything({ maxDepth: 3, withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withTypedArray: true, stringUnit: codePoint });
const city = fc.oneof(fc.constantFrom('Lisbon', 'Oslo', 'lisbon', ''), fc.string());
const tripArgs = fc.record(
  {
    stops: fc.array(fc.record({ city, nights: fc.oneof(fc.integer({ min: -1, max: 9 }), fc.double()) }, { requiredKeys: [] }), { maxLength: 6 }),
    mode: fc.constantFrom('rail', 'air', null, 'boat'),
    budget: fc.oneof(fc.double(), fc.constant(null)),
    tags: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...PROTOTYPE_KEYS)), fc.oneof(fc.boolean(), anything), { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);
const args = fc.oneof(anything, fc.jsonValue({ maxDepth: 3 }), tripArgs, fc.record({ taskId: fc.oneof(fc.string(), anything) }), fc.record({ totalCost: fc.oneof(fc.double(), fc.integer(), anything) }, { requiredKeys: [] }));
const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...TOOLS) }, fc.constantFrom(...PROTOTYPE_KEYS, 'respond', ''), fc.string());

describe('tool argument checks (properties)', () => {
  it('never throw: arguments pass unchanged, or come back as coded issues, and an unknown tool is tool.unknown', () => {
    fc.assert(
      fc.property(name, args, (tool, input) => {
        const result = registry.validateArguments(tool, input);
        if (result.ok) {
          expect(TOOLS).toContain(tool);
          expect(result.value).toBe(input);
          return;
        }
        expect(KNOWN_CODES.has(result.code)).toBe(true);
        expect(result.code).toBe(TOOLS.includes(tool) ? 'tool.invalid_arguments' : 'tool.unknown');
        expect(result.message).not.toBe('');
        for (const issue of result.issues) {
          expect(typeof issue.path).toBe('string');
          expect(issue.path === '' || issue.path.startsWith('/')).toBe(true);
          expect(typeof issue.message).toBe('string');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('decide approval for any arguments that passed their schema without rejecting', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOLS), args, fc.option(fc.constantFrom('tenant-1', 'tenant-2'), { nil: undefined }), async (tool, input, tenantId) => {
        const checked = registry.validateArguments(tool, input);
        fc.pre(checked.ok);
        const requirement = await registry.evaluateApproval(tool, checked.value, sampleContext({ tenantId }));
        expect(typeof requirement.required).toBe('boolean');
        if (requirement.error !== undefined) expect(requirement.required).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
