/**
 * What a test sees of a turn: its parts, its tool calls with their results, the approvals it waits
 * for, the envelope it settled with and the protocol violations the runtime corrected.
 */
import type { Envelope } from '../../src/protocol/envelope/envelope.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ModelMessage } from '../../src/runtime/model/model-types.ts';
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import type { EmittedPart, TurnRecord } from '../../src/runtime/session/turn-record.ts';
import { RESPOND_TOOL_NAME } from '../../src/protocol/respond/respond-schema.ts';

/** One part the turn emitted. */
export interface TestPart {
  /** `response`, `ack`, `clarify`, `approval-request`, … */
  readonly partType: string;
  readonly text?: string;
  readonly data?: Readonly<Record<string, unknown>>;
  /** The actor that emitted it. */
  readonly actor: string;
  /** The turn state declared with it. */
  readonly turnState: string;
  /** The part as the protocol carries it. */
  readonly part: Part;
}

/** One call of an app tool (respond() calls are parts, not tool calls). */
export interface TestToolCall {
  readonly name: string;
  /** The arguments as the model wrote them. */
  readonly args: unknown;
  /**
   * `ok`: the tool answered; `error`: invalid arguments, an unknown tool, a refusal or a handler
   * that threw (see `error`); `awaiting-approval`: the call waits for a person's decision.
   */
  readonly outcome: 'ok' | 'error' | 'awaiting-approval';
  /** The tool's output, parsed from JSON when it is JSON (text otherwise). Only when `ok`. */
  readonly result?: unknown;
  /** What the model was told, when `error`. */
  readonly error?: string;
}

/** An approval the turn waits for. */
export interface TestApproval {
  readonly approvalId: string;
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The code people reply with on text channels (`APPROVE <code>`). */
  readonly shortCode: string;
}

/** A protocol violation the runtime met and told the model about (an invalid respond() call, an unknown tool, …). */
export interface TestViolation {
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The outcome of one `send` (or one decision) in a test. */
export interface TestTurn {
  readonly sessionId: string;
  readonly turnId: string;
  /** The actor that holds the turn at its end (another one than the first after a pass). */
  readonly actor: string;
  /**
   * The state the turn ended this run in: the settled state (`complete`, `clarifying`, `error`,
   * …), or the state it waits in (`suspended` for an approval, `awaiting` …).
   */
  readonly turnState: string;
  /** Whether the turn settled (false while it waits). */
  readonly settled: boolean;
  /** Parts emitted during this run, in order (a resumed turn's earlier parts are not repeated). */
  readonly parts: readonly TestPart[];
  /** Every app tool call of the turn so far, in order. */
  readonly toolCalls: readonly TestToolCall[];
  /** The approvals the turn waits for (empty unless `turnState` is `suspended`). */
  readonly approvals: readonly TestApproval[];
  /** The envelope the turn settled with, for states that build one (`complete`, …). */
  readonly envelope?: Envelope;
  /** Protocol violations of the turn so far, in order. */
  readonly violations: readonly TestViolation[];
  /**
   * Surfaces left out of the envelope because their template threw or made an invalid surface
   * (`kind`: the data kind, `reason` and `message`: why), in order.
   */
  readonly droppedSurfaces: readonly Readonly<Record<string, unknown>>[];
  /** The texts of the parts of `partType` (default `response`), joined by blank lines. */
  text(partType?: string): string;
}

/** What one run of a turn produced, as recorded by the test bot's turn output. */
export interface TurnRun {
  readonly emitted: readonly EmittedPart[];
  readonly states: readonly { readonly turnState: string; readonly actor: string }[];
  readonly record: TurnRecord;
  readonly settledAs?: string;
  readonly envelope?: Envelope;
}

function testPart(emitted: EmittedPart): TestPart {
  const { part } = emitted;
  return {
    partType: part.metadata.partType,
    ...(part.text === undefined ? {} : { text: part.text }),
    ...(part.data === undefined ? {} : { data: part.data }),
    actor: emitted.actor,
    turnState: emitted.turnState,
    part,
  };
}

function parsed(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** The app tool calls of `messages`, each with its result when the turn sent one back. */
function toolCallsOf(messages: readonly ModelMessage[], waiting: ReadonlySet<string>): TestToolCall[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.tool_use_id, { content: block.content, isError: block.is_error === true });
  }
  const calls: TestToolCall[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type !== 'tool_use' || block.name === RESPOND_TOOL_NAME) continue;
      const result = results.get(block.id);
      if (waiting.has(block.id) || result === undefined) calls.push({ name: block.name, args: block.input, outcome: 'awaiting-approval' });
      else if (result.isError) calls.push({ name: block.name, args: block.input, outcome: 'error', error: result.content });
      else calls.push({ name: block.name, args: block.input, outcome: 'ok', result: parsed(result.content) });
    }
  }
  return calls;
}

function approvalsOf(run: TurnRun): TestApproval[] {
  const waiting = new Set((run.record.pendingApprovals ?? []).map((pending) => pending.approvalId));
  return run.record.emitted.flatMap(({ part }) => {
    const data = part.data as { approvalId?: string; toolName?: string; args?: Record<string, unknown>; shortCode?: string } | undefined;
    if (part.metadata.partType !== 'approval-request' || data?.approvalId === undefined || !waiting.has(data.approvalId)) return [];
    return [{ approvalId: data.approvalId, toolName: data.toolName ?? '', args: data.args ?? {}, shortCode: data.shortCode ?? '' }];
  });
}

/** Builds the {@link TestTurn} of a run from what was recorded and the turn's log entries. */
export function testTurnOf(run: TurnRun, log: readonly StoredEventLogEntry[]): TestTurn {
  const parts = run.emitted.map(testPart);
  const waiting = new Set((run.record.pendingApprovals ?? []).map((pending) => pending.toolUseId));
  const turnState = run.settledAs ?? run.record.wait?.turnState ?? run.states.at(-1)?.turnState ?? 'unknown';
  return {
    sessionId: run.record.sessionId,
    turnId: run.record.turnId,
    actor: run.record.actor,
    turnState,
    settled: run.settledAs !== undefined,
    parts,
    toolCalls: toolCallsOf(run.record.messages, waiting),
    approvals: approvalsOf(run),
    ...(run.envelope === undefined ? {} : { envelope: run.envelope }),
    droppedSurfaces: log.filter((entry) => entry.type === 'surface_dropped' && entry.turnId === run.record.turnId).map((entry) => entry.data),
    violations: log.filter((entry) => entry.type === 'protocol_violation' && entry.turnId === run.record.turnId).map((entry) => ({ kind: typeof entry.data['kind'] === 'string' ? entry.data['kind'] : 'unknown', data: entry.data })),
    text: (partType = 'response') => parts.filter((part) => part.partType === partType && part.text !== undefined).map((part) => part.text).join('\n\n'),
  };
}
