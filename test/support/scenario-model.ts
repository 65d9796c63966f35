import type { FakeContentBlock, FakeMessageReply, FakeMessageRequest, FakeScript } from '../fakes/fake-anthropic-types.ts';

/** What a scenario step sees of the request it answers. */
export interface ScenarioCall {
  readonly request: FakeMessageRequest;
  /** Model calls already answered in this scenario's turn (0 for the first). */
  readonly step: number;
  /** Every user text of the request, oldest first. */
  readonly texts: readonly string[];
  /** The tool results in the request's last user message. */
  readonly toolResults: readonly { tool_use_id: string; content: string; is_error?: boolean }[];
  /** The system prompt text. */
  readonly system: string;
  /** The names of the tools offered. */
  readonly tools: readonly string[];
}

/** Answers one call of a scenario. */
export type ScenarioStep = (call: ScenarioCall) => FakeMessageReply | Promise<FakeMessageReply>;

interface RequestMessage {
  readonly role: string;
  readonly content: string | readonly { type: string; text?: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[];
}

function blocksOf(message: RequestMessage): readonly { type: string; text?: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/**
 * A fake-model script that dispatches on a `#tag` in the person's message: the latest user text
 * holding a tag picks the scenario, and the number of assistant messages after it is the step.
 * Steps past the end of a scenario repeat its last step.
 */
export function scenarioScript(scenarios: Readonly<Record<string, readonly ScenarioStep[]>>): FakeScript {
  return async (request) => {
    const messages = request.body.messages as unknown as readonly RequestMessage[];
    let tag: string | undefined;
    let at = -1;
    for (let index = messages.length - 1; index >= 0 && tag === undefined; index -= 1) {
      const message = messages[index];
      if (message?.role !== 'user') continue;
      for (const block of blocksOf(message)) {
        const found = block.type === 'text' ? /#([a-z0-9-]+)/.exec(block.text ?? '')?.[1] : undefined;
        if (found !== undefined) {
          tag = found;
          at = index;
        }
      }
    }
    const steps = tag === undefined ? undefined : scenarios[tag];
    if (steps === undefined || steps.length === 0) throw new Error(`no scenario for tag ${tag ?? '(none)'}`);
    const step = messages.slice(at + 1).filter((message) => message.role === 'assistant').length;
    const last = messages.at(-1);
    const toolResults = last === undefined ? [] : blocksOf(last).filter((block) => block.type === 'tool_result').map((block) => ({
      tool_use_id: block.tool_use_id ?? '',
      content: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
      ...(block.is_error === undefined ? {} : { is_error: block.is_error }),
    }));
    const texts = messages.filter((message) => message.role === 'user').flatMap((message) => blocksOf(message).flatMap((block) => (block.type === 'text' && block.text !== undefined ? [block.text] : [])));
    const system = Array.isArray(request.body.system) ? request.body.system.map((block) => block.text).join('\n') : request.body.system ?? '';
    const tools = (request.body.tools ?? []).map((tool) => ('name' in tool ? tool.name : tool.type));
    const handler = steps[Math.min(step, steps.length - 1)];
    if (handler === undefined) throw new Error('unreachable');
    return handler({ request, step, texts, toolResults, system, tools });
  };
}

let counter = 0;

/** A respond() tool call block. */
export function respond(parts: readonly Record<string, unknown>[], turnState: string, extra: Record<string, unknown> = {}): FakeContentBlock {
  counter += 1;
  return { type: 'tool_use', id: `toolu_respond_${counter}`, name: 'respond', input: { parts, turnState, ...extra } };
}

/** A text part for respond(). */
export function part(partType: string, text: string): Record<string, unknown> {
  return { text, metadata: { partType } };
}

/** A domain tool call block. */
export function toolCall(name: string, input: unknown): FakeContentBlock {
  counter += 1;
  return { type: 'tool_use', id: `toolu_${name}_${counter}`, name, input };
}

/** A model reply made of blocks. */
export function reply(...content: FakeContentBlock[]): FakeMessageReply {
  return { content, stopReason: 'tool_use' };
}

/**
 * `text` without the marks of outside content around it: what is inside an
 * `<untrusted_content …>…</untrusted_content>` block, or `text` itself when it is not one.
 */
export function unmarked(text: string): string {
  return /^<untrusted_content [^>\n]*>\n([\s\S]*)\n<\/untrusted_content>$/.exec(text)?.[1] ?? text;
}

/** The text of the last user message of a model request (its text blocks joined by newlines), or `''`. */
export function lastUserText(request: FakeMessageRequest): string {
  const message = [...request.body.messages].reverse().find((candidate) => candidate.role === 'user');
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
