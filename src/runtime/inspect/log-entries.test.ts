import { describe, expect, it } from 'vitest';
import type { ModelResponse } from '../model/model-types.ts';
import { modelRequestData, modelResponseData, respondParts } from './model-call-entries.ts';
import { MASKED } from './personal-data.ts';
import { TOOL_RESULT_CHARS, toolCallData } from './tool-call-entry.ts';

const response: ModelResponse = {
  id: 'msg_1',
  model: 'claude-sonnet-5-5',
  stopReason: 'tool_use',
  usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
  content: [
    { type: 'text', text: 'thinking aloud' },
    { type: 'tool_use', id: 't1', name: 'respond', input: { parts: [{ text: 'x'.repeat(600), metadata: { partType: 'response' } }, { data: {}, metadata: { partType: 'domain-data' } }], turnState: 'complete' } },
    { type: 'tool_use', id: 't2', name: 'lookup', input: { q: 'a' } },
  ],
};

describe('log entries of model calls and tool calls', () => {
  it('model_request: step, model, message count, tool names, and captured only when it was', () => {
    const request = { model: 'm', maxTokens: 1, system: [], toolChoice: 'any' as const, tools: [{ name: 'lookup', description: 'd', input_schema: {} }], messages: [{ role: 'user' as const, content: [] }] };
    expect(modelRequestData(2, request, false)).toEqual({ step: 2, model: 'm', messages: 1, tools: ['lookup'] });
    expect(modelRequestData(2, request, true)).toMatchObject({ captured: true });
  });

  it('model_response: usage, latency, cost, the blocks, the respond() parts with their text cut at 500', () => {
    const data = modelResponseData(response, { step: 0, latencyMs: 12, costUsd: 0.0000701 });
    expect(data).toMatchObject({ step: 0, id: 'msg_1', model: 'claude-sonnet-5-5', stopReason: 'tool_use', usage: response.usage, latencyMs: 12, costUsd: 0.00007, blocks: ['text', 'respond', 'lookup'] });
    expect(data['parts']).toEqual([{ partType: 'response', text: `${'x'.repeat(500)}…` }, { partType: 'domain-data' }]);
    expect(data).not.toHaveProperty('content');
    expect(modelResponseData(response, { step: 0, latencyMs: 1, costUsd: undefined })).toMatchObject({ costUsd: 0, priced: false });
    expect(modelResponseData(response, { step: 0, latencyMs: 1, costUsd: 0, content: response.content })['content']).toEqual(response.content);
    expect(respondParts([{ type: 'tool_use', id: 'x', name: 'respond', input: 'not an object' }])).toEqual([]);
  });

  it('tool_call: every field, personal data masked in arguments and result, the result cut at 16 KB', () => {
    const tool = { name: 'book', scope: 'generalist' as const, routing: 'routed' as const, personalData: ['passengers/*/fullName'] };
    const data = toolCallData({
      callId: 'turn_1.0.2', toolUseId: 't2', tool, durationMs: 7, outcome: 'ok',
      args: { passengers: [{ fullName: 'Ada' }], seats: 1 },
      result: JSON.stringify({ passengers: [{ fullName: 'Ada' }], pad: 'y'.repeat(TOOL_RESULT_CHARS) }),
      approvalId: 'apr_1',
    });
    expect(data).toMatchObject({ callId: 'turn_1.0.2', toolUseId: 't2', tool: 'book', scope: 'generalist', routing: 'routed', durationMs: 7, outcome: 'ok', args: { passengers: [{ fullName: MASKED }], seats: 1 }, approvalId: 'apr_1' });
    const result = String(data['result']);
    expect(result).toHaveLength(TOOL_RESULT_CHARS + 1);
    expect(result.endsWith('…')).toBe(true);
    expect(result).not.toContain('Ada');
    expect(toolCallData({ callId: 'c', toolUseId: 't', tool, durationMs: 0, outcome: 'approval_required', args: {}, reason: 'policy' })).toEqual({
      callId: 'c', toolUseId: 't', tool: 'book', scope: 'generalist', routing: 'routed', durationMs: 0, outcome: 'approval_required', args: {}, reason: 'policy',
    });
  });
});
