import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/model-types.ts';
import { DEFAULT_ACTOR_LIMITS } from './actor-config.ts';
import { buildModelRequest, estimateTokens, joinSameRole, trimHistory, trimJoinedHistory, type ModelRequestInput } from './model-request.ts';

const text = (role: 'user' | 'assistant', value: string): ModelMessage => ({ role, content: [{ type: 'text', text: value }] });
const toolUse = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'respond', input: { pad: 'x'.repeat(400) } }] });
const toolResult = (id: string, next?: string): ModelMessage => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: 'Delivered.' }, ...(next === undefined ? [] : [{ type: 'text' as const, text: next }])],
});

/** Three turns: each a person's message, a respond() call and its result (the next message joins it). */
const history: ModelMessage[] = [text('user', 'first'), toolUse('a'), toolResult('a', 'second'), toolUse('b'), toolResult('b', 'third'), toolUse('c'), toolResult('c')];

describe('history within a token budget', () => {
  it('keeps everything that fits', () => {
    expect(trimHistory(history, 100_000)).toEqual(history);
  });

  it('drops whole turns from the start, never a tool call without its result, and starts with the person', () => {
    const kept = trimHistory(history, 250);
    expect(kept[0]?.role).toBe('user');
    expect(kept[0]?.content).toEqual([{ type: 'text', text: 'third' }]);
    const uses = kept.flatMap((message) => message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])));
    const results = kept.flatMap((message) => message.content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])));
    expect(uses).toEqual(results);
  });

  it('keeps nothing when not even the last turn fits', () => {
    expect(trimHistory(history, 10)).toEqual([]);
  });

  it('trims a history and a turn\'s new messages as one list, whatever the budget', () => {
    const before = history.slice(0, 3);
    const added = history.slice(3);
    for (const budget of [10, 250, 400, 100_000]) {
      expect(trimJoinedHistory(before, added, budget)).toEqual(trimHistory(history, budget));
    }
  });
});

describe('the model request', () => {
  it('joins same-role neighbours, forces a tool call and marks three cache breakpoints', () => {
    expect(joinSameRole([text('user', 'a'), text('user', 'b')])).toEqual([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }]);
    const request = buildModelRequest({
      actor: { name: 'a', model: 'm', systemPrompt: 'Be helpful.', tools: [], midTurn: 'steer', limits: DEFAULT_ACTOR_LIMITS },
      tools: [{ name: 'lookup', description: 'Looks up.', input_schema: { type: 'object' } }],
      respondTool: { name: 'respond', description: 'Answer.', input_schema: { type: 'object' } },
      terminalTools: [],
      history: [text('user', 'earlier'), text('assistant', 'reply')],
      turn: [text('user', 'now')],
    });
    expect(request.toolChoice).toBe('any');
    expect(request.tools.map((tool) => [tool.name, tool.cache_control])).toEqual([['respond', undefined], ['lookup', { type: 'ephemeral' }]]);
    expect(request.system[0]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(request.messages[1]?.content.at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(request.messages.at(-1)).toEqual(text('user', 'now'));
  });
});

/** The request's messages as first written: trim, mark the last history message, then join everything. */
function referenceMessages(input: ModelRequestInput): ModelMessage[] {
  const budget = Math.max(0, input.actor.limits.historyTokenBudget - estimateTokens(input.turn));
  const kept = trimHistory(input.history, budget);
  const last = kept.at(-1);
  const block = last?.content.at(-1);
  const marked = last === undefined || block === undefined ? kept : [...kept.slice(0, -1), { role: last.role, content: [...last.content.slice(0, -1), { ...block, cache_control: { type: 'ephemeral' as const } }] }];
  return joinSameRole([...marked, ...input.turn]);
}

/** One turn's messages: a person's text (or none), tool calls and results, maybe a message without blocks. */
const turnArbitrary = fc.record({
  text: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
  calls: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 3 }),
  empty: fc.boolean(),
  closing: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
}).map(({ text: said, calls, empty, closing }): ModelMessage[] => [
  ...(said === undefined ? [] : [text('user', said)]),
  ...calls.flatMap((id) => [toolUse(id), toolResult(id)]),
  ...(empty ? [{ role: 'user' as const, content: [] }] : []),
  ...(closing === undefined ? [] : [text('assistant', closing)]),
]);

describe('the model request over a growing history', () => {
  it('holds the same messages as trimming, marking and joining from scratch, turn after turn', () => {
    fc.assert(
      fc.property(fc.array(turnArbitrary, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 1_500 }), (turns, budget) => {
        const actor = { name: 'a', model: 'm', systemPrompt: '', tools: [], midTurn: 'steer' as const, limits: { ...DEFAULT_ACTOR_LIMITS, historyTokenBudget: budget } };
        let stored: ModelMessage[] = [];
        for (const messages of turns) {
          const input: ModelRequestInput = { actor, tools: [], respondTool: { name: 'respond', description: 'Answer.', input_schema: { type: 'object' } }, terminalTools: [], history: stored, turn: messages };
          // Twice: the second call finds the joined history the first one kept.
          expect(buildModelRequest(input).messages).toEqual(referenceMessages(input));
          expect(buildModelRequest(input).messages).toEqual(referenceMessages(input));
          stored = trimJoinedHistory(stored, messages, budget * 2);
        }
      }),
      { numRuns: 300 },
    );
  });
});
