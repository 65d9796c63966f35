import { RESPOND_SYSTEM_PROMPT, terminalToolsPromptSection } from '../../protocol/respond/system-prompt.ts';
import type { ModelMessage, ModelRequest, ModelTool } from '../model/model-types.ts';
import { listChars, noteAppended } from '../session/history-list.ts';
import type { ActorConfig } from './actor-config.ts';
import { carriesUntrustedContent, rememberCarriedAfter, UNTRUSTED_CONTENT_PROMPT } from './untrusted-content.ts';

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Characters of each list already measured: lists are never changed, and a turn measures its history at every step. */
const measured = new WeakMap<readonly ModelMessage[], number>();

/** Rough token estimate of a message list: 4 characters ≈ 1 token. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  let chars = measured.get(messages);
  if (chars === undefined) {
    chars = JSON.stringify(messages).length;
    measured.set(messages, chars);
  }
  return Math.ceil(chars / 4);
}

/**
 * Records that `messages` is `chars` characters of JSON (as read from the store, where it was kept
 * as `JSON.stringify(messages)`), so {@link estimateTokens} need not serialise it again.
 */
export function rememberSize(messages: readonly ModelMessage[], chars: number): void {
  measured.set(messages, chars);
}

/**
 * The role-joined form ({@link joinSameRole}) of each history list already joined, so a list used
 * by several model calls, or carried from one turn to the next, is not joined again message by
 * message: a conversation's history runs to hundreds of messages.
 */
const joinedForms = new WeakMap<readonly ModelMessage[], readonly ModelMessage[]>();

function joinedOf(history: readonly ModelMessage[]): readonly ModelMessage[] {
  let joined = joinedForms.get(history);
  if (joined === undefined) {
    joined = joinSameRole(history);
    joinedForms.set(history, joined);
  }
  return joined;
}

/**
 * {@link trimHistory} of `history` followed by `added`, measuring each part once. When nothing is
 * trimmed, the joined form of the result is derived from the one `history` had, if it had one, and
 * the store is told the result only added to `history` (`noteAppended`).
 */
export function trimJoinedHistory(history: readonly ModelMessage[], added: readonly ModelMessage[], budgetTokens: number): ModelMessage[] {
  // Serialised once: measured here, and stored as is when the history is not trimmed.
  const addedJson = added.map((message) => JSON.stringify(message));
  rememberSize(added, listChars(addedJson.map((json) => json.length)));
  if (estimateTokens(history) + estimateTokens(added) > budgetTokens) return trimHistory([...history, ...added], budgetTokens);
  const next = [...history, ...added];
  noteAppended(next, history, addedJson);
  rememberCarriedAfter(next, history, added);
  const joined = joinedForms.get(history);
  if (joined !== undefined) joinedForms.set(next, joinOnto(joined.slice(), added));
  return next;
}

/**
 * The most recent whole exchanges of `history` that fit in `budgetTokens`. Cuts only at a user
 * message that carries new text (a turn's start), never between a tool call and its result, and
 * the kept history always starts with a user message.
 */
export function trimHistory(history: readonly ModelMessage[], budgetTokens: number): ModelMessage[] {
  if (estimateTokens(history) <= budgetTokens) return [...history];
  const starts: number[] = [];
  history.forEach((message, index) => {
    if (message.role === 'user' && message.content.some((block) => block.type === 'text')) starts.push(index);
  });
  for (const start of starts) {
    if (start === 0) continue;
    const kept = history.slice(start);
    if (estimateTokens(kept) <= budgetTokens) return dropLeadingToolResults(kept);
  }
  return [];
}

/** A kept history may start with a user message mixing the previous turn's tool results; drop them. */
function dropLeadingToolResults(history: ModelMessage[]): ModelMessage[] {
  const [first, ...rest] = history;
  if (first === undefined) return [];
  const content = first.content.filter((block) => block.type !== 'tool_result');
  return [{ role: first.role, content }, ...rest];
}

function withCacheMark(message: ModelMessage): ModelMessage {
  const last = message.content.at(-1);
  if (last === undefined) return message;
  return { role: message.role, content: [...message.content.slice(0, -1), { ...last, cache_control: EPHEMERAL }] };
}

/** Joins consecutive messages of the same role, as the API wants alternating roles. */
export function joinSameRole(messages: readonly ModelMessage[]): ModelMessage[] {
  return joinOnto([], messages);
}

/** Appends `messages` to the joined list `out` (changed in place and returned), joining same-role neighbours. */
function joinOnto(out: ModelMessage[], messages: readonly ModelMessage[]): ModelMessage[] {
  let previous = out.at(-1);
  for (const message of messages) {
    if (previous !== undefined && previous.role === message.role) {
      previous = { role: message.role, content: previous.content.concat(message.content) };
      out[out.length - 1] = previous;
    } else {
      out.push(message);
      previous = message;
    }
  }
  return out;
}

/** Inputs of {@link buildModelRequest}. */
export interface ModelRequestInput {
  readonly actor: ActorConfig;
  /** The actor's domain tools, in the model's shape (respond() is added here). */
  readonly tools: readonly ModelTool[];
  readonly respondTool: ModelTool;
  /** Terminal tools of the actor, for the system prompt. */
  readonly terminalTools: readonly { name: string; description: string }[];
  /** History before this turn. */
  readonly history: readonly ModelMessage[];
  /** This turn's messages so far. */
  readonly turn: readonly ModelMessage[];
}

/**
 * One model call for an actor, with prompt caching: breakpoints on the system prompt, on the last
 * tool (so the tool list is cached), and on the last history message before this turn (so turn N+1
 * re-reads turn N from the cache). `tool_choice` is `any`: the model must call a tool. When the
 * history or the turn carries outside content, the system prompt ends with what its label means.
 */
export function buildModelRequest(input: ModelRequestInput): ModelRequest {
  const { actor } = input;
  const untrusted = carriesUntrustedContent(input.history, input.turn) ? UNTRUSTED_CONTENT_PROMPT : '';
  const system = [actor.systemPrompt.trim(), RESPOND_SYSTEM_PROMPT, terminalToolsPromptSection(input.terminalTools), untrusted]
    .filter((text) => text.length > 0)
    .join('\n\n');
  const tools = [input.respondTool, ...input.tools];
  const lastTool = tools.at(-1);
  const markedTools = lastTool === undefined ? tools : [...tools.slice(0, -1), { ...lastTool, cache_control: EPHEMERAL }];
  const budget = Math.max(0, actor.limits.historyTokenBudget - estimateTokens(input.turn));
  return {
    model: actor.model,
    maxTokens: actor.limits.maxOutputTokens,
    system: [{ type: 'text', text: system, cache_control: EPHEMERAL }],
    tools: markedTools,
    toolChoice: 'any',
    messages: joinOnto(markedHistory(input.history, budget), input.turn),
  };
}

/**
 * The joined history that fits in `budget` tokens, a new list whose last message carries the cache
 * breakpoint. The same as joining the trimmed history after marking its last message: that
 * message's last block is the joined last message's last block (a message without blocks is
 * marked before joining, as it carries none).
 */
function markedHistory(history: readonly ModelMessage[], budget: number): ModelMessage[] {
  const kept = estimateTokens(history) <= budget ? history : trimHistory(history, budget);
  const last = kept.at(-1);
  if (last === undefined) return [];
  if (last.content.length === 0) return joinSameRole([...kept.slice(0, -1), withCacheMark(last)]);
  const joined = (kept === history ? joinedOf(history) : joinSameRole(kept)).slice();
  joined[joined.length - 1] = withCacheMark(joined.at(-1) as ModelMessage);
  return joined;
}
