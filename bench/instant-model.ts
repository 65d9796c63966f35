import type { ModelClient } from '../src/runtime/model/model-types.ts';

/** Answers every call at once with one complete response echoing the person's last message. */
export const instantModel: ModelClient = {
  create(request) {
    const last = request.messages.at(-1);
    const text = last?.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).at(-1) ?? '';
    return Promise.resolve({
      id: 'msg_bench',
      model: request.model,
      stopReason: 'tool_use',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      content: [{ type: 'tool_use', id: `toolu_${text}`, name: 'respond', input: { parts: [{ text: `re ${text}`, metadata: { partType: 'response' } }], turnState: 'complete' } }],
    });
  },
};

