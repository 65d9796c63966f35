import { describe, expect, it } from 'vitest';
import { createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import { createTurnStateRegistry } from '../turn-states/turn-state-registry.ts';
import type { RespondIssueCode } from './respond-call.ts';
import { type RespondValidationContext, respondErrorToolResult, validateRespondCall } from './validate-respond-call.ts';

const context: RespondValidationContext = { partTypes: createPartTypeRegistry(), turnStates: createTurnStateRegistry() };

function codesOf(input: unknown, ctx = context): RespondIssueCode[] {
  const result = validateRespondCall(input, ctx);
  return result.ok ? [] : result.issues.map((issue) => issue.code);
}

const approvalRequest = {
  approvalId: 'apr_1',
  toolName: 'book_flight',
  toolCallId: 'toolu_1',
  args: { totalCost: 120 },
  handler: 'concierge',
  turn: 'turn_1',
  session: 'sess_1',
  expiresAt: '2026-11-23T10:00:00Z',
};

describe('validateRespondCall', () => {
  it('accepts the simple one-call response and keeps its parts', () => {
    const result = validateRespondCall(
      { parts: [{ text: 'Your tasks: T12, T15.', metadata: { partType: 'response' } }], turnState: 'complete' },
      context,
    );
    expect(result).toEqual({
      ok: true,
      call: { parts: [{ text: 'Your tasks: T12, T15.', metadata: { partType: 'response' } }], turnState: 'complete' },
    });
  });

  it('accepts passTo with passed, and a note', () => {
    const result = validateRespondCall(
      { parts: [{ text: 'Handing over.', metadata: { partType: 'thinking' } }], turnState: 'passed', passTo: 'drafter', note: 'n' },
      { ...context, knownActors: ['concierge', 'drafter'] },
    );
    expect(result.ok && result.call.passTo).toBe('drafter');
    expect(result.ok && result.call.note).toBe('n');
  });

  it('accepts data-only parts and consumer part types', () => {
    const partTypes = createPartTypeRegistry();
    partTypes.register({ partType: 'ta.slot', deliveryRules: { streaming: 'flush', buffered: 'drop' } });
    const result = validateRespondCall(
      {
        parts: [
          { data: { flights: [] }, metadata: { partType: 'domain-data' } },
          { data: { slot: 1 }, metadata: { partType: 'ta.slot' } },
        ],
        turnState: 'complete',
      },
      { ...context, partTypes },
    );
    expect(result.ok).toBe(true);
  });

  it.each<[string, unknown, RespondIssueCode]>([
    ['not an object', 'hello', 'not_an_object'],
    ['an array', [], 'not_an_object'],
    ['no parts', { turnState: 'complete' }, 'parts_missing'],
    ['parts not an array', { parts: {}, turnState: 'complete' }, 'parts_not_array'],
    ['empty parts', { parts: [], turnState: 'complete' }, 'parts_empty'],
    ['a part that is a string', { parts: ['hi'], turnState: 'complete' }, 'part_not_object'],
    ['a part without metadata', { parts: [{ text: 'x' }], turnState: 'complete' }, 'metadata_missing'],
    ['a part without partType', { parts: [{ text: 'x', metadata: {} }], turnState: 'complete' }, 'part_type_missing'],
    ['an unknown partType', { parts: [{ text: 'x', metadata: { partType: 'answer' } }], turnState: 'complete' }, 'part_type_unknown'],
    ['a part with neither text nor data', { parts: [{ metadata: { partType: 'response' } }], turnState: 'complete' }, 'part_empty'],
    ['text that is not a string', { parts: [{ text: 3, metadata: { partType: 'response' } }], turnState: 'complete' }, 'text_not_string'],
    ['data that is an array', { parts: [{ data: [1], metadata: { partType: 'domain-data' } }], turnState: 'complete' }, 'data_not_object'],
    ['an unknown part property', { parts: [{ text: 'x', kind: 'text', metadata: { partType: 'response' } }], turnState: 'complete' }, 'part_unexpected_property'],
    ['an unknown call property', { parts: [{ text: 'x', metadata: { partType: 'response' } }], turnState: 'complete', mood: 1 }, 'unexpected_property'],
    ['no turnState', { parts: [{ text: 'x', metadata: { partType: 'response' } }] }, 'turn_state_missing'],
    ['an unknown turnState', { parts: [{ text: 'x', metadata: { partType: 'response' } }], turnState: 'done' }, 'turn_state_unknown'],
    ['passTo without passed', { parts: [{ text: 'x', metadata: { partType: 'response' } }], turnState: 'complete', passTo: 'drafter' }, 'pass_to_without_passed'],
    ['passed without passTo', { parts: [{ text: 'x', metadata: { partType: 'thinking' } }], turnState: 'passed' }, 'passed_without_pass_to'],
    ['passTo not a string', { parts: [{ text: 'x', metadata: { partType: 'thinking' } }], turnState: 'passed', passTo: 7 }, 'pass_to_not_string'],
    ['a note that is not a string', { parts: [{ text: 'x', metadata: { partType: 'response' } }], turnState: 'complete', note: {} }, 'note_not_string'],
    ['an approval-response from the model', {
      parts: [{ data: { approvalId: 'a', decision: 'granted', decidedAt: '2026-11-22T10:00:00Z' }, metadata: { partType: 'approval-response' } }],
      turnState: 'complete',
    }, 'part_type_runtime_only'],
  ])('refuses %s', (_label, input, code) => {
    expect(codesOf(input)).toContain(code);
  });

  it('refuses passTo naming an actor that does not exist', () => {
    expect(
      codesOf(
        { parts: [{ text: 'x', metadata: { partType: 'thinking' } }], turnState: 'passed', passTo: 'ghost' },
        { ...context, knownActors: ['concierge'] },
      ),
    ).toEqual(['pass_to_unknown_actor']);
  });

  it('checks approval-request data against the ApprovalRequest shape', () => {
    const ok = validateRespondCall(
      { parts: [{ data: approvalRequest, metadata: { partType: 'approval-request' } }], turnState: 'suspended' },
      context,
    );
    expect(ok.ok).toBe(true);
    const { toolCallId: _dropped, ...withoutCallId } = approvalRequest;
    const bad = validateRespondCall(
      {
        parts: [{ data: { ...withoutCallId, args: 'x', expiresAt: 'tomorrow' }, metadata: { partType: 'approval-request' } }],
        turnState: 'suspended',
      },
      context,
    );
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues.map((issue) => issue.path)).toEqual([
      '/parts/0/data/toolCallId',
      '/parts/0/data/args',
      '/parts/0/data/expiresAt',
    ]);
    expect(!bad.ok && bad.issues.every((issue) => issue.code === 'approval_request_invalid')).toBe(true);
  });

  it('checks approval-response data against the ApprovalResponse shape', () => {
    const bad = validateRespondCall(
      { parts: [{ data: { approvalId: 'a', decision: 'yes' }, metadata: { partType: 'approval-response' } }], turnState: 'complete' },
      context,
    );
    expect(!bad.ok && bad.issues.map((issue) => issue.code)).toEqual([
      'part_type_runtime_only',
      'approval_response_invalid',
      'approval_response_invalid',
    ]);
  });

  it('reports every issue at once, not only the first', () => {
    expect(codesOf({ parts: [{ metadata: { partType: 'response' } }, { text: 1, metadata: { partType: 'x' } }], turnState: 'nope' })).toEqual([
      'part_empty',
      'text_not_string',
      'part_type_unknown',
      'turn_state_unknown',
    ]);
  });

  it('never throws, whatever the input', () => {
    for (const input of [null, undefined, 0, 'x', [], { parts: null }, { parts: [null] }, { parts: [{ metadata: null }] }]) {
      expect(() => validateRespondCall(input, context)).not.toThrow();
    }
  });

  it('describes a turnState it cannot print by its type, instead of throwing', () => {
    // Counterexample found by validate-respond-call.properties.test.ts: a BigInt turnState with passTo threw
    // "TypeError: Do not know how to serialize a BigInt" while the issue message was built.
    const input = { parts: [{ data: {}, metadata: { partType: 'ack' } }], turnState: [{ '': 0n }], passTo: 'drafter' };
    const result = validateRespondCall(input, context);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.find((issue) => issue.code === 'pass_to_without_passed')?.message).toBe(
      '"passTo" is only valid with turnState "passed" (got an array).',
    );
    expect(codesOf({ ...input, turnState: 10n })).toContain('pass_to_without_passed');
  });

  it('builds an is_error tool result that names each issue for the model', () => {
    const result = validateRespondCall({ parts: [{ text: 'x', metadata: { partType: 'answer' } }], turnState: 'complete' }, context);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const toolResult = respondErrorToolResult('toolu_9', result.issues);
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_9', is_error: true });
    expect(toolResult.content).toContain('/parts/0/metadata/partType');
    expect(toolResult.content).toContain('Unknown partType "answer"');
    expect(toolResult.content).toContain('[part_type_unknown]');
  });
});
