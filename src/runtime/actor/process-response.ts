import { parseRespondCall } from '../../protocol/respond/parse-respond-call.ts';
import type { RespondCall } from '../../protocol/respond/respond-call.ts';
import { RESPOND_TOOL_NAME } from '../../protocol/respond/respond-schema.ts';
import { respondErrorToolResult, validateRespondCall, type RespondValidation, type RespondValidationContext } from '../../protocol/respond/validate-respond-call.ts';
import { createToolHandlerContext } from '../../protocol/tools/tool-handler-context.ts';
import type { Injection } from '../injection.ts';
import type { ModelInputBlock, ModelOutputBlock, ModelResponse } from '../model/model-types.ts';
import type { EmittedPart, TurnDataEvent, TurnRecord } from '../session/turn-record.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { outsideReadsReason } from './tainted-turn.ts';
import { runToolCall } from './tool-call.ts';
import { createToolDelegation, type DelegationState } from './tool-delegation.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

const FREE_TEXT_NOTE =
  'Protocol violation: text written outside a tool call is never shown to anyone and was discarded. ' +
  'Put everything you want to say into a respond call.';
const NO_TOOL_NOTE = 'Protocol violation: you must call a tool. Use respond to say anything to the person.';

/** What one model response did: the tool results for the model and what the turn must do next. */
export interface ResponseOutcome {
  /** Tool results (and correction notes) for the next user message, in block order. */
  readonly results: ModelInputBlock[];
  readonly emitted: EmittedPart[];
  readonly dataEvents: TurnDataEvent[];
  /** Protocol violations in this response (each a reason for a corrective retry). */
  readonly violations: number;
  /** Text outside tool calls was written. */
  readonly freeText: boolean;
  /** Some tool was called. */
  readonly sawToolUse: boolean;
  /** The respond() call that settled the turn (complete, clarifying, error, passed). */
  readonly settle: RespondCall | undefined;
  /** A non-terminal state other than awaiting (delegated) the turn now waits in. */
  readonly waitState: string | undefined;
  /** A terminal tool's output, which becomes the answer. */
  readonly terminal: { readonly output: string; readonly tool: string } | undefined;
  /** Calls that wait for a person's approval. */
  readonly awaitingApproval: ApprovalWait[];
  /** The turn's new deadline (ISO 8601), when a tool that delegated to a peer moved it out. */
  readonly deadlineAt: string | undefined;
  /** What this response's tool calls read from outside (results of `readsUntrusted` tools), in words. */
  readonly untrustedReads: string[];
}

/** A tool call that waits for a person's approval. */
export interface ApprovalWait {
  toolUseId: string;
  toolName: string;
  args: Readonly<Record<string, unknown>>;
  /** Set in a turn that read outside content: `this turn read content from outside: email body`. */
  reason?: string;
}

/** What the tool calls of a response produced so far (each call appends). */
interface ToolCallsSoFar {
  readonly results: ModelInputBlock[];
  readonly dataEvents: TurnDataEvent[];
  readonly awaitingApproval: ApprovalWait[];
  /** What the calls so far read from outside, in words. */
  readonly untrustedReads: string[];
  terminal: { output: string; tool: string } | undefined;
  /** Shared by the calls' delegation hooks: the deadline and the emitted parts. */
  readonly delegation: DelegationState;
}

/** What a respond() call is checked against: both registries and the actors `passTo` may name. */
export function respondContext(deps: TurnRunnerDeps): RespondValidationContext {
  return { partTypes: deps.partTypes, turnStates: deps.turnStates, knownActors: [...deps.actors.keys()] };
}

/** Where a response is processed. */
export interface ResponseContext {
  readonly deps: TurnRunnerDeps;
  readonly record: TurnRecord;
  readonly actor: ResolvedActor;
  readonly step: number;
  readonly inbox: readonly Injection[];
  /** Part ids already delivered while the response streamed. */
  readonly early: ReadonlySet<string>;
  /** respond() calls already checked while the response streamed, by block index. */
  readonly validated: ReadonlyMap<number, RespondValidation>;
  readonly now: () => number;
}

/**
 * Processes one model response block by block: validates and delivers respond() calls, runs tool
 * calls (terminal tools and approvals included), and records every protocol violation. Never
 * throws for bad model output: each problem becomes a tool result the model reads.
 */
export async function processResponse(context: ResponseContext, response: ModelResponse): Promise<ResponseOutcome> {
  const { deps, record, step, early, validated } = context;
  const { sessionId, turnId } = record;
  const emitted: EmittedPart[] = [];
  const initialDeadlineMs = Date.parse(record.deadlineAt);
  const calls: ToolCallsSoFar = { results: [], dataEvents: [], awaitingApproval: [], untrustedReads: [], terminal: undefined, delegation: { deadlineMs: initialDeadlineMs, emitted } };
  const { results } = calls;
  let violations = 0;
  let freeText = false;
  let sawToolUse = false;
  let settle: RespondCall | undefined;
  let waitState: string | undefined;

  for (const [index, block] of response.content.entries()) {
    if (block.type === 'text') {
      if (block.text.trim() !== '') {
        freeText = true;
        await deps.log.append(sessionId, { type: 'protocol_violation', turnId, actor: record.actor, data: { kind: 'free_text', text: block.text.slice(0, 500) } });
      }
      continue;
    }
    sawToolUse = true;
    if (block.name === RESPOND_TOOL_NAME) {
      const checked = validated.get(index) ?? validateRespondCall(block.input, respondContext(deps));
      if (!checked.ok) {
        violations += 1;
        await deps.log.append(sessionId, { type: 'protocol_violation', turnId, actor: record.actor, data: { kind: 'invalid_respond', issues: checked.issues } });
        results.push(respondErrorToolResult(block.id, checked.issues));
        continue;
      }
      if (settle !== undefined) {
        results.push({ type: 'tool_result', tool_use_id: block.id, is_error: true, content: 'An earlier respond call in this message already settled the turn; this one was not delivered.' });
        continue;
      }
      if (checked.call.turnState === 'suspended') {
        violations += 1;
        results.push({
          type: 'tool_result',
          tool_use_id: block.id,
          is_error: true,
          content: 'Only the runtime sets turnState "suspended", when a tool needs approval. Nothing was delivered; call the tool itself instead.',
        });
        continue;
      }
      const events = parseRespondCall(checked.call, { sessionId, turnId, actorName: record.actor, toolUseId: block.id });
      for (const event of events) {
        if (event.type !== 'partReceived') continue;
        const part: EmittedPart = { partId: `${turnId}.${step}.${index}.${event.index}`, part: event.part, turnState: event.turnState, actor: record.actor };
        emitted.push(part);
        await deps.log.append(sessionId, { type: 'part', turnId, actor: record.actor, data: { partId: part.partId, partType: event.partType, turnState: event.turnState } });
        if (!early.has(part.partId)) await deps.output.part(record, part);
      }
      await deps.log.append(sessionId, { type: 'turn_state', turnId, actor: record.actor, data: { turnState: checked.call.turnState, passTo: checked.call.passTo, note: checked.call.note } });
      const definition = deps.turnStates.require(checked.call.turnState);
      // A settling state is announced once, by the settlement, after the envelope's parts.
      if (!definition.isTerminal || checked.call.turnState === 'passed') await deps.output.state(record, checked.call.turnState, record.actor);
      results.push({ type: 'tool_result', tool_use_id: block.id, content: 'Delivered.' });
      if (definition.isTerminal) settle = checked.call;
      else if (checked.call.turnState !== 'awaiting') waitState = checked.call.turnState;
      continue;
    }
    await runToolBlock(context, calls, block, index);
  }

  if (freeText || !sawToolUse) {
    violations += 1;
    results.push({ type: 'text', text: sawToolUse ? FREE_TEXT_NOTE : NO_TOOL_NOTE });
  }
  const { dataEvents, terminal, awaitingApproval, delegation, untrustedReads } = calls;
  const deadlineAt = delegation.deadlineMs === initialDeadlineMs ? undefined : new Date(delegation.deadlineMs).toISOString();
  return { results, emitted, dataEvents, violations, freeText, sawToolUse, settle, waitState, terminal, awaitingApproval, deadlineAt, untrustedReads };
}

/**
 * Runs one tool call (not respond) of the response at block `index`, with its `callId`
 * (`<turnId>.<step>.<index>`: the same when a retried turn replays this step) and a delegation hook
 * in its context (progress part ids `<callId>.peer.<n>`), and adds what it did to `calls`: its
 * result, its domain data, a terminal answer, or a wait for approval.
 */
async function runToolBlock(context: ResponseContext, calls: ToolCallsSoFar, block: Extract<ModelOutputBlock, { type: 'tool_use' }>, index: number): Promise<void> {
  const { deps, record, actor, step, inbox, now } = context;
  const { sessionId, turnId } = record;
  if (calls.terminal !== undefined && actor.tools.get(block.name)?.terminal === true) {
    calls.results.push({ type: 'tool_result', tool_use_id: block.id, is_error: true, content: `Only one terminal tool may run per turn; "${block.name}" was not run.` });
    return;
  }
  const callId = `${turnId}.${String(step)}.${String(index)}`;
  const delegation = createToolDelegation({ deps, record, partIdPrefix: callId, now }, calls.delegation);
  const first = inbox[0];
  const handlerContext = createToolHandlerContext({ actorName: record.actor, sessionId, turnId, callId, tenantId: first?.tenantId, userId: first?.sender.id, personId: first?.sender.personId, delegation });
  // Outside content read earlier in the turn, or by an earlier call of this response, taints the call.
  const reads = [...(record.untrustedReads ?? []), ...calls.untrustedReads];
  const outcome = await runToolCall({ registry: deps.registry, router: deps.router, log: deps.log, now }, actor.tools, block, handlerContext, reads);
  if (outcome.untrustedRead !== undefined) calls.untrustedReads.push(outcome.untrustedRead);
  const plan = outcome.approvalRequired === undefined ? undefined : deps.approvals?.plan(block.name);
  // A peer asks but never approves: with nobody else to approve, its request is refused at once.
  const requesterApproves = plan?.allowRequester === true && first?.sender.agent !== true;
  if (outcome.approvalRequired !== undefined && plan !== undefined && (plan.approvers.length > 0 || requesterApproves)) {
    // In a tainted turn the approvers are told why: what the turn read (the log has the policy's side too).
    const { args } = outcome.approvalRequired;
    calls.awaitingApproval.push({ toolUseId: block.id, toolName: block.name, args, ...(reads.length > 0 ? { reason: outsideReadsReason(reads) } : {}) });
    return;
  }
  calls.results.push(
    outcome.approvalRequired === undefined
      ? outcome.result
      : { ...outcome.result, content: `ToolDenied: "${block.name}" needs a person's approval and nobody is configured to approve it. The action was not taken.` },
  );
  if (outcome.dataEvent !== undefined) calls.dataEvents.push(outcome.dataEvent);
  if (outcome.terminalOutput !== undefined) calls.terminal = { output: outcome.terminalOutput, tool: block.name };
}
