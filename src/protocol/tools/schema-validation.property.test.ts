import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from './tool-registry.ts';
import { plainTool, registerRaw } from './tool-test-fixtures.ts';

type FieldType = 'string' | 'number' | 'integer' | 'boolean';

const valueOf: Record<FieldType, fc.Arbitrary<unknown>> = {
  string: fc.string(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  integer: fc.integer(),
  boolean: fc.boolean(),
};

/** Values that never match the type (integers are numbers, so a number type gets no integer here). */
const wrongValueOf: Record<FieldType, fc.Arbitrary<unknown>> = {
  string: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string())),
  number: fc.oneof(fc.string(), fc.boolean(), fc.constant(null)),
  integer: fc.oneof(fc.string(), fc.boolean(), fc.double({ min: 0.1, max: 0.9 })),
  boolean: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
};

const fieldName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/).filter((name) => name !== '__proto__');
const fields = fc.uniqueArray(fc.tuple(fieldName, fc.constantFrom<FieldType>('string', 'number', 'integer', 'boolean')), {
  minLength: 1,
  maxLength: 6,
  selector: ([name]) => name,
});

function schemaFor(spec: readonly (readonly [string, FieldType])[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(spec.map(([name, type]) => [name, { type }])),
    required: spec.map(([name]) => name),
    additionalProperties: false,
  };
}

function argsFor(spec: readonly (readonly [string, FieldType])[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(spec.map(([name, type]) => [name, valueOf[type]])));
}

describe('argument validation (property)', () => {
  it('accepts every generated args object that matches its schema', () => {
    fc.assert(
      fc.property(
        fields.chain((spec) => fc.tuple(fc.constant(spec), argsFor(spec))),
        ([spec, args]) => {
          const registry = createToolRegistry();
          registerRaw(registry, plainTool({ inputSchema: schemaFor(spec) }));
          expect(registry.validateArguments('task_get', args)).toEqual({ ok: true, value: args });
        },
      ),
    );
  });

  it('rejects a wrong-typed required field, pointing at that field', () => {
    fc.assert(
      fc.property(
        fields.chain((spec) =>
          fc.tuple(fc.constant(spec), argsFor(spec), fc.nat({ max: spec.length - 1 })).chain(([s, args, index]) => {
            const [name, type] = s[index] ?? s[0] ?? ['', 'string'];
            return fc.tuple(fc.constant(s), fc.constant(args), fc.constant(name), wrongValueOf[type]);
          }),
        ),
        ([spec, args, name, wrong]) => {
          const registry = createToolRegistry();
          registerRaw(registry, plainTool({ inputSchema: schemaFor(spec) }));
          const result = registry.validateArguments('task_get', { ...args, [name]: wrong });
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.issues.map((issue) => issue.path)).toContain(`/${name}`);
        },
      ),
    );
  });
});
