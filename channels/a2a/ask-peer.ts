/**
 * The `ask_<peer>` tools: an actor hands a question to a peer agent (a `switchboard.yaml` peer with
 * a `url`) and reads its settled answer as the tool's result. While the peer works the turn is
 * `delegated` (its deadline moves out by the peer's budget) and the peer's progress is shown.
 */
import { createHash } from 'node:crypto';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { GeneralistToolDefinition, ToolHandlerContext } from '../../src/protocol/tools/tool-definition.ts';
import type { ToolRegistry } from '../../src/protocol/tools/tool-registry.ts';
import { fromA2aPart, messageText } from './a2a-parts.ts';
import { callPeer, type PeerClientOptions, type PeerOutcome } from './peer-call.ts';

/** A peer as the tool needs it; `PeerConfig` of the loaded app fits. */
export interface AskablePeer {
  /** Stable id (`[a-z0-9][a-z0-9_-]*`); names the tool `ask_<id>`. */
  readonly id: string;
  /** Display name, shown to the model. */
  readonly name: string;
  /** Base URL; the Agent Card is at `<url>/.well-known/agent-card.json`. */
  readonly url: string;
  /** The bearer token we present. A secret: never logged or thrown. */
  readonly token: string;
  /** The peer's budget per call, in seconds: the call is stopped after it. */
  readonly timeoutSeconds: number;
}

/** Arguments of an `ask_<peer>` tool, after schema validation. */
export interface AskPeerArgs {
  /** What to ask or tell the peer, plain text. */
  readonly text: string;
  /** The peer's conversation to continue (from an earlier result). */
  readonly contextId?: string;
  /** The peer's task to continue: one that asked a question (`input-required`). */
  readonly taskId?: string;
}

/** The peer's settled answer. */
export interface AskPeerAnswer {
  readonly peer: string;
  readonly state: 'completed';
  readonly contextId: string;
  readonly taskId: string;
  /** The peer's `llm-context` prose when it sent any, else its response text. */
  readonly text: string;
  /** The peer's `domain-data`, collected into this turn's envelope under kind `peer:<id>`. */
  readonly domainData?: { readonly kind: string; readonly data: Readonly<Record<string, unknown>> };
}

/** The peer needs an answer from our person before it can go on. */
export interface AskPeerQuestion {
  readonly peer: string;
  readonly state: 'input-required';
  readonly question: string;
  readonly contextId: string;
  readonly taskId: string;
  /** What the model should do next. */
  readonly note: string;
}

/** What an `ask_<peer>` call returns. */
export type AskPeerResult = AskPeerAnswer | AskPeerQuestion;

/** Longest text sent to a peer, in characters (the `a2a` channel's own bound on what it accepts). */
export const ASK_PEER_MAX_TEXT_CHARS = 100_000;

/** The tool that asks peer `id`: `ask_<id>` with every `-` replaced by `_`. */
export function askPeerToolName(id: string): string {
  return `ask_${id.replaceAll('-', '_')}`;
}

/**
 * The A2A `messageId` of one call: `ask-` and the SHA-256 of the session, the call's position
 * (`callId`, else the turn), the peer and the arguments. A call run again at the same position (a
 * turn retried after a crash) is the same message to the peer, which answers it with the task it
 * started; a deliberate retry (the model calls again at a later step, say after a timeout) is a new
 * message.
 */
export function askPeerMessageId(ctx: Pick<ToolHandlerContext, 'sessionId' | 'turnId' | 'callId'>, peerId: string, args: AskPeerArgs): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([ctx.sessionId, ctx.callId ?? ctx.turnId, peerId, args.text, args.contextId ?? '', args.taskId ?? '']))
    .digest('hex');
  return `ask-${digest.slice(0, 40)}`;
}

function describe(peer: AskablePeer): string {
  return (
    `Ask the peer agent "${peer.name}" (another assistant, reached over A2A) and get its answer. Use it for requests ` +
    `that ${peer.name} handles, or when the person asks for ${peer.name}. Write text as a complete, self-contained request: ` +
    'the peer does not see this conversation. To go on with an earlier exchange, pass its contextId; to answer a question ' +
    `the peer asked (state "input-required"), pass its contextId and taskId too. The peer has ${String(peer.timeoutSeconds)} s to answer.`
  );
}

const TEXT_TYPES_NOT_ANSWERS: ReadonlySet<string> = new Set(['ack', 'thinking', 'progress', 'llm-context', 'domain-data', 'a2ui-surface']);

/** The text the model reads: `llm-context` prose, else the response text, else any other answer text. */
function answerText(parts: readonly Part[]): string {
  const texts = (keep: (partType: string) => boolean): string =>
    parts
      .filter((part) => part.text !== undefined && part.text.trim() !== '' && keep(part.metadata.partType))
      .map((part) => part.text ?? '')
      .join('\n\n');
  return texts((type) => type === 'llm-context') || texts((type) => type === 'response') || texts((type) => !TEXT_TYPES_NOT_ANSWERS.has(type));
}

/** The peer's `domain-data` parts as one object (later keys win). */
function domainDataOf(parts: readonly Part[]): Record<string, unknown> | undefined {
  let merged: Record<string, unknown> | undefined;
  for (const part of parts) {
    if (part.metadata.partType === 'domain-data' && part.data !== undefined) merged = { ...merged, ...part.data };
  }
  return merged;
}

/** The tool's result for the peer's outcome. */
export function askPeerResult(peer: Pick<AskablePeer, 'id' | 'name'>, outcome: PeerOutcome): AskPeerResult {
  const where = { peer: peer.id, contextId: outcome.contextId, taskId: outcome.taskId };
  if (outcome.state === 'input-required') {
    const question = messageText(outcome.parts).trim() || `${peer.name} needs more information.`;
    const note =
      `${peer.name} needs an answer before it can go on. Ask the person with a clarify part (in your own words if that reads better). ` +
      `When they answer, call ${askPeerToolName(peer.id)} again with their answer as text, contextId "${outcome.contextId}" and taskId "${outcome.taskId}".`;
    return { ...where, state: 'input-required', question, note };
  }
  const parts = outcome.parts.map(fromA2aPart);
  const data = domainDataOf(parts);
  return {
    ...where,
    state: 'completed',
    text: answerText(parts) || `${peer.name} finished without a text answer.`,
    ...(data === undefined ? {} : { domainData: { kind: `peer:${peer.id}`, data } }),
  };
}

/**
 * Creates the `ask_<id>` tool of `peer` (generalist, routed, `readsUntrusted`), ready for `ToolRegistry.register`.
 * The handler marks the turn delegated for `timeoutSeconds`, streams the peer's answer (passing
 * its progress on) and returns an {@link AskPeerResult}; a timeout, a refused token, a peer that
 * is down or a task that failed throws `SwitchboardError` `peer.failed`, which the model reads.
 *
 * @example
 * registry.register(askPeerTool({ id: 'hotel-agent', name: 'Hotel agent', url: 'https://hotels.example', token, timeoutSeconds: 300 }));
 */
export function askPeerTool(peer: AskablePeer, options: PeerClientOptions = {}): GeneralistToolDefinition<AskPeerArgs, AskPeerResult> {
  const budgetMs = peer.timeoutSeconds * 1000;
  return {
    name: askPeerToolName(peer.id),
    description: describe(peer),
    scope: 'generalist',
    routing: 'routed',
    tags: ['peer', 'a2a'],
    // A peer's answer is outside content: the model reads it as data, and the turn is tainted.
    readsUntrusted: true,
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: {
        text: { type: 'string', minLength: 1, maxLength: ASK_PEER_MAX_TEXT_CHARS, pattern: '\\S', description: `The request for ${peer.name}, complete on its own.` },
        contextId: { type: 'string', minLength: 1, maxLength: 200, description: 'The contextId of an earlier answer, to go on with that exchange.' },
        taskId: { type: 'string', minLength: 1, maxLength: 200, description: 'The taskId of a question the peer asked, when this text answers it.' },
      },
    },
    handler: async (args, ctx) => {
      await ctx.delegation?.begin(budgetMs);
      const request = { messageId: askPeerMessageId(ctx, peer.id, args), text: args.text, contextId: args.contextId ?? '', taskId: args.taskId ?? '' };
      const onProgress = async (text: string): Promise<void> => {
        await ctx.delegation?.progress(text);
      };
      return askPeerResult(peer, await callPeer(peer, request, budgetMs, options, onProgress));
    },
  };
}

/** A peer of the app: only those with a `url` can be asked. */
export type PeerEntry = Omit<AskablePeer, 'url'> & { readonly url?: string | undefined };

/**
 * Registers one `ask_<id>` tool per peer with a `url` (see {@link askPeerTool}). Returns the names
 * registered, in the peers' order.
 *
 * @example
 * registerPeerTools(registry, app.peers, {});
 */
export function registerPeerTools(registry: Pick<ToolRegistry, 'register'>, peers: readonly PeerEntry[], options: PeerClientOptions = {}): string[] {
  const names: string[] = [];
  for (const peer of peers) {
    if (peer.url === undefined) continue;
    const tool = registry.register(askPeerTool({ id: peer.id, name: peer.name, url: peer.url, token: peer.token, timeoutSeconds: peer.timeoutSeconds }, options));
    names.push(tool.name);
  }
  return names;
}
