/**
 * A model call with the personal data of its tool calls masked (see `personal-data.ts`): the
 * arguments of each `tool_use` block of a tool that declares `personalData`, and that tool's
 * results when they are JSON. What the capture keeps and the log shows of a call.
 */
import type { ModelInputBlock, ModelMessage, ModelOutputBlock, ModelRequest } from '../model/model-types.ts';
import { maskPersonalData, maskPersonalDataText } from './personal-data.ts';

/** The personal-data paths of a tool by name (`[]` when it declares none or is unknown). */
export type PersonalDataOf = (toolName: string) => readonly string[];

/** The request's messages, tool calls and their results masked; system prompt and tools as sent. */
export function maskModelRequest(request: ModelRequest, personalDataOf: PersonalDataOf): ModelRequest {
  // Results name their call by id only: the tool of each id, from the calls before them.
  const toolOfCall = new Map<string, string>();
  for (const message of request.messages) {
    for (const block of message.content) if (block.type === 'tool_use') toolOfCall.set(block.id, block.name);
  }
  const maskBlock = (block: ModelInputBlock): ModelInputBlock => {
    if (block.type === 'tool_use') return { ...block, input: maskPersonalData(block.input, personalDataOf(block.name)) };
    if (block.type !== 'tool_result') return block;
    const tool = toolOfCall.get(block.tool_use_id);
    return tool === undefined ? block : { ...block, content: maskPersonalDataText(block.content, personalDataOf(tool)) };
  };
  const messages: ModelMessage[] = request.messages.map((message) => ({ ...message, content: message.content.map(maskBlock) }));
  return { ...request, messages };
}

/** A response's blocks with the arguments of personal-data tools masked. */
export function maskModelOutput(blocks: readonly ModelOutputBlock[], personalDataOf: PersonalDataOf): ModelOutputBlock[] {
  return blocks.map((block) => (block.type === 'tool_use' ? { ...block, input: maskPersonalData(block.input, personalDataOf(block.name)) } : block));
}
