import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import { createTurnStateRegistry } from '../turn-states/turn-state-registry.ts';
import { parseRespondCall } from './parse-respond-call.ts';
import { validateRespondCall } from './validate-respond-call.ts';

const partTypes = createPartTypeRegistry();
partTypes.register({ partType: 'ta.slot', deliveryRules: { streaming: 'flush', buffered: 'drop' } });
const turnStates = createTurnStateRegistry();
const context = { partTypes, turnStates };

const SIMPLE_TYPES = partTypes.ids().filter((id) => !id.startsWith('approval-'));
const STATES = turnStates.ids();

const partArb = fc.record(
  {
    text: fc.string(),
    data: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue()),
    metadata: fc.record({ partType: fc.constantFrom(...SIMPLE_TYPES) }),
  },
  { requiredKeys: ['metadata'] },
).filter((part) => part.text !== undefined || part.data !== undefined);

const validCallArb = fc
  .record({ parts: fc.array(partArb, { minLength: 1, maxLength: 8 }), turnState: fc.constantFrom(...STATES) })
  .map((call) => (call.turnState === 'passed' ? { ...call, passTo: 'drafter' } : call));

type Corruption = (call: { parts: Record<string, unknown>[]; turnState: string; passTo?: string }, index: number) => { input: unknown; code: string };

const corruptions: Corruption[] = [
  (call, index) => ({
    input: { ...call, parts: call.parts.map((p, i) => (i === index ? { ...p, metadata: { partType: 'no-such-type' } } : p)) },
    code: 'part_type_unknown',
  }),
  (call, index) => ({
    input: { ...call, parts: call.parts.map((p, i) => (i === index ? { metadata: p['metadata'] } : p)) },
    code: 'part_empty',
  }),
  (call) => ({ input: { ...call, turnState: 'not-a-state' }, code: 'turn_state_unknown' }),
  (call) => ({ input: { ...call, turnState: 'complete', passTo: 'drafter' }, code: 'pass_to_without_passed' }),
  (call) => {
    const { passTo: _passTo, ...rest } = call;
    return { input: { ...rest, turnState: 'passed' }, code: 'passed_without_pass_to' };
  },
];

describe('respond() validator properties', () => {
  it('accepts every well-formed call, and parsing keeps every part in order', () => {
    fc.assert(
      fc.property(validCallArb, (input) => {
        const result = validateRespondCall(input, context);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const events = parseRespondCall(result.call, { sessionId: 's', turnId: 't', actorName: 'a', toolUseId: 'u' });
        const received = events.filter((event) => event.type === 'partReceived');
        expect(received.map((event) => event.part)).toEqual(input.parts);
        expect(received.every((event) => event.turnState === input.turnState)).toBe(true);
        expect(events.at(-1)).toMatchObject({ type: 'turnStateChanged', turnState: input.turnState });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses every corrupted call with the matching issue code', () => {
    fc.assert(
      fc.property(validCallArb, fc.nat(), fc.nat({ max: corruptions.length - 1 }), (call, at, which) => {
        const corrupt = corruptions[which];
        if (corrupt === undefined) return;
        const { input, code } = corrupt(call, at % call.parts.length);
        const result = validateRespondCall(input, context);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.issues.map((issue) => issue.code)).toContain(code);
      }),
      { numRuns: 500 },
    );
  });
});
