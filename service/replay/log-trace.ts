/**
 * What a turn did, read from its event-log entries: its tool calls, the approvals it asked for, its
 * parts, the protocol violations the runtime corrected and its last state. The recording and the
 * replay are read by the same code, so they compare like for like.
 */
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import type { FixtureApproval, FixtureOutcome, FixturePart, FixtureToolCall, ToolOutcome } from './fixture-types.ts';
import { objectField, stringField } from './log-fields.ts';

/** A protocol violation, with what the runtime said about it. */
export interface TracedViolation {
  readonly kind: string;
  readonly detail: string;
}

/** A turn as its log tells it. */
export interface TurnTrace {
  readonly toolCalls: readonly FixtureToolCall[];
  readonly approvals: readonly FixtureApproval[];
  readonly outcome: FixtureOutcome;
  readonly violations: readonly TracedViolation[];
}

const TOOL_OUTCOMES: readonly string[] = ['ok', 'error', 'invalid_output', 'approval_required'];
/** Violations that are tool calls refused before any handler: traced as tool calls, not violations. */
const REFUSED_CALLS: readonly string[] = ['unknown_tool', 'invalid_arguments'];
/** Whether a call's handler ran. */
const RAN: readonly ToolOutcome[] = ['ok', 'error', 'invalid_output'];

/** The type of an entry as a plain string (the log may hold types this version does not list). */
function typeOf(entry: StoredEventLogEntry): string {
  return entry.type;
}

/** The tool call an entry records, if it records one. */
function toolCallOf(entry: StoredEventLogEntry): FixtureToolCall | undefined {
  const { data } = entry;
  const tool = stringField(data['tool']);
  if (tool === undefined) return undefined;
  if (typeOf(entry) === 'protocol_violation') {
    const kind = stringField(data['kind']) ?? '';
    return REFUSED_CALLS.includes(kind) ? { tool, outcome: kind as ToolOutcome } : undefined;
  }
  const outcome = stringField(data['outcome']);
  if (typeOf(entry) !== 'tool_call' || outcome === undefined || !TOOL_OUTCOMES.includes(outcome)) return undefined;
  const args = objectField(data['args']);
  const callId = stringField(data['callId']);
  const result = stringField(data['result']);
  const error = stringField(data['error']);
  return {
    tool,
    outcome: outcome as ToolOutcome,
    ...(callId === undefined ? {} : { callId }),
    ...(args === undefined ? {} : { args }),
    ...(result === undefined ? {} : { result }),
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * The tool calls of `entries`, in order. A specialist's `specialist_execution` entry (args and
 * result, written after its `tool_call`) fills what the `tool_call` entry lacks.
 */
function toolCallsOf(entries: readonly StoredEventLogEntry[]): FixtureToolCall[] {
  const calls: FixtureToolCall[] = [];
  for (const entry of entries) {
    const call = toolCallOf(entry);
    if (call !== undefined) {
      calls.push(call);
      continue;
    }
    const last = calls.at(-1);
    if (typeOf(entry) !== 'specialist_execution' || last === undefined || last.tool !== entry.data['tool']) continue;
    const args = objectField(entry.data['args']);
    const result = stringField(entry.data['result']);
    calls[calls.length - 1] = { ...last, ...(last.args === undefined && args !== undefined ? { args } : {}), ...(last.result === undefined && result !== undefined ? { result } : {}) };
  }
  return calls;
}

/**
 * The approvals of `entries` (`approval` entries: requested, then decided or expired), in the
 * order asked. A log without `approval` entries tells the decision by what followed: the tool ran
 * later in the turn (granted), or the turn went on without it (denied).
 */
function approvalsOf(entries: readonly StoredEventLogEntry[], calls: readonly FixtureToolCall[]): FixtureApproval[] {
  const recorded = new Map<string, { tool: string; decision: FixtureApproval['decision']; by?: string }>();
  for (const entry of entries) {
    if (typeOf(entry) !== 'approval') continue;
    const id = stringField(entry.data['approvalId']) ?? String(recorded.size);
    const event = stringField(entry.data['event']);
    const known = recorded.get(id) ?? { tool: stringField(entry.data['tool']) ?? '', decision: 'pending' as const };
    const decision = event === 'expired' ? 'expired' : stringField(entry.data['decision']);
    const decidedBy = entry.data['decidedBy'];
    const by = stringField(objectField(decidedBy)?.['personId']) ?? stringField(objectField(decidedBy)?.['address']) ?? stringField(decidedBy);
    recorded.set(id, {
      ...known,
      ...(decision === 'granted' || decision === 'denied' || decision === 'expired' ? { decision } : {}),
      ...(by === undefined ? {} : { by }),
    });
  }
  const resumed = entries.some((entry) => typeOf(entry) === 'turn_resumed');
  const inferred = calls.flatMap((call, index): FixtureApproval[] => {
    if (call.outcome !== 'approval_required') return [];
    const ranLater = calls.slice(index + 1).some((later) => later.tool === call.tool && RAN.includes(later.outcome));
    return [{ tool: call.tool, decision: ranLater ? 'granted' : resumed ? 'denied' : 'pending' }];
  });
  if (recorded.size === 0) return inferred;
  // A decision taken where no `decided` entry was written (a test bot) still shows in what followed.
  return [...recorded.values()].map((approval, index) => (approval.decision === 'pending' ? { ...approval, decision: inferred[index]?.decision ?? 'pending' } : approval));
}

/** The detail of a violation, for a message: the respond() issues, or its other fields. */
function violationDetail(data: Readonly<Record<string, unknown>>): string {
  const issues = data['issues'];
  if (Array.isArray(issues)) {
    return issues.map((issue) => {
      const fields = objectField(issue);
      return `${stringField(fields?.['path']) || '(root)'}: ${stringField(fields?.['message']) ?? JSON.stringify(issue)}`;
    }).join('; ');
  }
  const { kind: _kind, ...rest } = data;
  return JSON.stringify(rest);
}

/**
 * Reads a turn from its log entries. `partText` gives the text of a part by its id when the
 * `part` entry does not carry it (from the model's respond() call, or from what the turn emitted).
 */
export function traceOf(entries: readonly StoredEventLogEntry[], partText: (partId: string) => string | undefined): TurnTrace {
  const toolCalls = toolCallsOf(entries);
  const parts: FixturePart[] = [];
  const violations: TracedViolation[] = [];
  let turnState: string | undefined;
  for (const entry of entries) {
    const { data } = entry;
    const type = typeOf(entry);
    if (type === 'part') {
      const partType = stringField(data['partType']) ?? 'unknown';
      const text = stringField(data['text']) ?? partText(stringField(data['partId']) ?? '');
      parts.push({ partType, ...(text === undefined ? {} : { text }) });
    } else if (type === 'protocol_violation') {
      const kind = stringField(data['kind']) ?? 'unknown';
      if (!REFUSED_CALLS.includes(kind)) violations.push({ kind, detail: violationDetail(data) });
    } else if (type === 'turn_state' || type === 'turn_settled') {
      turnState = stringField(data['turnState']) ?? turnState;
    }
  }
  const outcome: FixtureOutcome = { ...(turnState === undefined ? {} : { turnState }), parts, violations: violations.map((violation) => violation.kind) };
  return { toolCalls, approvals: approvalsOf(entries, toolCalls), outcome, violations };
}
