import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/model-types.ts';
import { DEFAULT_ACTOR_LIMITS } from './actor-config.ts';
import { buildModelRequest, joinSameRole, trimHistory, trimJoinedHistory } from './model-request.ts';

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
