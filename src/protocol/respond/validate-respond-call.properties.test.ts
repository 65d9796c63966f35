import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import { createTurnStateRegistry } from '../turn-states/turn-state-registry.ts';
import type { RespondIssueCode } from './respond-call.ts';
import { buildRespondTool } from './respond-schema.ts';
import { respondErrorToolResult, validateRespondCall } from './validate-respond-call.ts';

const partTypes = createPartTypeRegistry();
partTypes.register({ partType: 'ta.slot', deliveryRules: { streaming: 'flush', buffered: 'drop' } });
const turnStates = createTurnStateRegistry();
const ACTORS = ['drafter', 'triage'];
const contexts = [{ partTypes, turnStates }, { partTypes, turnStates, knownActors: ACTORS }];

/** Every issue code, as a record so the compiler notices a code added to the type and not here. */
const ISSUE_CODES: Readonly<Record<RespondIssueCode, true>> = {
  not_an_object: true, unexpected_property: true, parts_missing: true, parts_not_array: true, parts_empty: true, part_not_object: true,
  part_unexpected_property: true, metadata_missing: true, part_type_missing: true, part_type_unknown: true, part_type_runtime_only: true,
  part_empty: true, text_not_string: true, data_not_object: true, turn_state_missing: true, turn_state_unknown: true,
  pass_to_without_passed: true, passed_without_pass_to: true, pass_to_not_string: true, pass_to_unknown_actor: true,
  note_not_string: true, approval_request_invalid: true, approval_response_invalid: true,
};

/** The schema the model is given: where the valid calls below take their enums from. */
const schema = buildRespondTool(partTypes, turnStates).input_schema as {
  properties: { parts: { items: { properties: { metadata: { properties: { partType: { enum: string[] } } } } } }; turnState: { enum: string[] } };
};
const PART_TYPES = schema.properties.parts.items.properties.metadata.properties.partType.enum;
const TURN_STATES = schema.properties.turnState.enum;

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
/** Any code point (fast-check's `unit: 'binary'` takes 0.6 s to build). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
const text = fc.oneof(fc.string(), fc.string({ unit: codePoint }), fc.constantFrom('', '\u0000', '\ud800', '👨‍👩‍👧', 'x'.repeat(100_000)));
const nonEmpty = text.filter((value) => value !== '');
const isoTime = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
const json = fc.jsonValue({ maxDepth: 3 });
const data = fc.dictionary(fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom(...PROTOTYPE_KEYS)), json, { maxKeys: 4 });

const approvalRequest = fc.record(
  { approvalId: nonEmpty, toolName: nonEmpty, toolCallId: nonEmpty, args: data, handler: nonEmpty, turn: nonEmpty, session: nonEmpty, expiresAt: isoTime },
  { requiredKeys: ['approvalId', 'toolName', 'toolCallId', 'args', 'handler', 'turn', 'session'] },
);

/** A part the schema allows: its type from the schema's enum, with text, data or both (an approval request's data of its shape). */
const part = fc.constantFrom(...PART_TYPES).chain((partType) => {
  const body: fc.Arbitrary<{ text?: string; data?: Record<string, unknown> }> =
    partType === 'approval-request'
      ? fc.record({ text, data: approvalRequest }, { requiredKeys: ['data'] })
      : fc.record({ text, data }, { requiredKeys: [] }).filter((each) => each.text !== undefined || each.data !== undefined);
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), json, { maxKeys: 2 });
  return fc.tuple(body, extra).map(([fields, more]) => ({ ...fields, metadata: { ...more, partType } }));
});

/** A call the schema allows; `passTo` exactly with `passed`, naming a known actor. */
const validCall = fc
  .record({ parts: fc.array(part, { minLength: 1, maxLength: 6 }), turnState: fc.constantFrom(...TURN_STATES), passTo: fc.constantFrom(...ACTORS), note: text }, { requiredKeys: ['parts', 'turnState', 'passTo'] })
  .map(({ passTo, ...call }) => (call.turnState === 'passed' ? { ...call, passTo } : call));

/** Anything at all, and calls broken in one place. */
const anyInput = fc.oneof(
  fc.anything({ maxDepth: 3, withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withTypedArray: true, stringUnit: codePoint }),
  fc.tuple(validCall, fc.constantFrom('parts', 'turnState', 'passTo', 'note', 'metadata', 'partType', 'text', 'data', '__proto__'), fc.anything({ maxDepth: 2, withBigInt: true, withNullPrototype: true })).map(([call, where, value]) => {
    const [first, ...rest] = call.parts;
    if (where === 'metadata' || where === 'text' || where === 'data') return { ...call, parts: [{ ...first, [where]: value }, ...rest] };
    if (where === 'partType') return { ...call, parts: [{ ...first, metadata: { partType: value } }, ...rest] };
    const broken: Record<string, unknown> = { ...call };
    Object.defineProperty(broken, where, { value, enumerable: true, configurable: true, writable: true });
    return broken;
  }),
);

describe('respond() validator properties', () => {
  it('never throws on any input: it validates, or refuses with coded issues the model can read', () => {
    fc.assert(
      fc.property(anyInput, fc.constantFrom(...contexts), (input, context) => {
        const result = validateRespondCall(input, context);
        if (result.ok) return;
        expect(result.issues.length).toBeGreaterThan(0);
        for (const issue of result.issues) {
          expect(Object.hasOwn(ISSUE_CODES, issue.code)).toBe(true);
          expect(issue.path === '' || issue.path.startsWith('/')).toBe(true);
          expect(typeof issue.message === 'string' && issue.message !== '').toBe(true);
        }
        const toolResult = respondErrorToolResult('toolu_1', result.issues);
        for (const issue of result.issues) expect(toolResult.content).toContain(`[${issue.code}]`);
        expect(validateRespondCall(input, context)).toEqual(result);
      }),
      { numRuns: 700 },
    );
  });

  it('accepts every call generated from the schema, giving it back as it was, also after a JSON round trip', () => {
    fc.assert(
      fc.property(validCall, (input) => {
        const result = validateRespondCall(input, contexts[1] ?? { partTypes, turnStates });
        expect(result).toEqual({ ok: true, call: input });
        const wire = JSON.parse(JSON.stringify(input)) as unknown;
        expect(validateRespondCall(wire, { partTypes, turnStates })).toEqual({ ok: true, call: wire });
      }),
      { numRuns: 500 },
    );
  });
});
