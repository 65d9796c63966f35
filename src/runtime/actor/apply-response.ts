import { approvalRequestedEntry } from '../inspect/approval-entries.ts';
import type { ModelInputBlock, ModelOutputBlock } from '../model/model-types.ts';
import type { EmittedPart } from '../session/turn-record.ts';
import { requestApprovals, requesterOf, type ApprovalGate } from './approval-gate.ts';
import type { LiveTurn } from './live-turn.ts';
import type { ModelStep } from './model-step.ts';
import { processResponse, type ResponseOutcome } from './process-response.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { withReads } from './tainted-turn.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

/**
 * Processes a model call's response (see `processResponse`) and folds it into the turn: the step
 * advances, the assistant message and the tool results are appended, a response with protocol
 * violations that did not settle counts one more corrective retry, a deadline that a delegating
 * tool moved out is kept, and outside content its tools read taints the turn. Returns what the
 * response did.
 */
export async function applyResponse(deps: TurnRunnerDeps, turn: LiveTurn, actor: ResolvedActor, now: () => number, call: ModelStep): Promise<ResponseOutcome> {
  const { step, response, early, validated } = call;
  const record = turn.record;
  const outcome = await processResponse({ deps, record, actor, step, inbox: turn.inbox, early, validated, now }, response);
  const { results, emitted, dataEvents, violations, settle } = outcome;
  const assistant = toInputBlocks(response.content);
  const untrustedReads = withReads(record.untrustedReads, outcome.untrustedReads);
  turn.record = {
    ...record,
    step: step + 1,
    corrective: violations > 0 && settle === undefined ? record.corrective + 1 : record.corrective,
    messages: [
      ...record.messages,
      ...(assistant.length > 0 ? [{ role: 'assistant' as const, content: assistant }] : []),
      ...(results.length > 0 ? [{ role: 'user' as const, content: results }] : []),
    ],
    emitted: [...record.emitted, ...emitted],
    dataEvents: [...record.dataEvents, ...dataEvents],
    // A tool that delegated to a peer moved the deadline out (never in).
    ...(outcome.deadlineAt === undefined ? {} : { deadlineAt: outcome.deadlineAt }),
    ...(untrustedReads === undefined ? {} : { untrustedReads }),
  };
  return outcome;
}

/** The response's blocks as the next request's assistant message (blank text dropped). */
function toInputBlocks(blocks: readonly ModelOutputBlock[]): ModelInputBlock[] {
  return blocks.flatMap((block): ModelInputBlock[] => {
    if (block.type === 'text') return block.text.trim() === '' ? [] : [{ type: 'text', text: block.text }];
    return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
  });
}

/**
 * Suspends the turn on the calls that wait for people: the message's other results are held
 * until they decide. The suspension is saved first, then each approval request is logged,
 * delivered and announced, and the `suspended` state is logged and delivered.
 */
export async function suspendForApprovals(deps: TurnRunnerDeps, gate: ApprovalGate, turn: LiveTurn, step: number, outcome: ResponseOutcome): Promise<void> {
  const requested = await requestApprovals(gate, turn.record, outcome.awaitingApproval, requesterOf(turn.inbox[0]), step);
  const { messages, ...rest } = turn.record;
  const withoutHeld = messages.at(-1)?.role === 'user' ? messages.slice(0, -1) : messages;
  turn.record = {
    ...rest,
    messages: withoutHeld,
    heldResults: outcome.results,
    pendingApprovals: requested.pending,
    status: 'waiting',
    wait: { turnState: 'suspended', until: requested.until, ref: requested.pending.map((pending) => pending.approvalId).join(',') },
    emitted: [...rest.emitted, ...requested.parts],
  };
  await deps.store.saveTurn(turn.record);
  const { sessionId, turnId, actor, replyTo } = turn.record;
  await deps.inspect?.conversations?.markSuspended(sessionId, (deps.now ?? Date.now)());
  for (const part of requested.parts) {
    await deps.log.append(sessionId, { type: 'part', turnId, actor, data: { partId: part.partId, partType: 'approval-request' } });
    await deps.output.part(turn.record, part);
    const approvalId = part.part.data?.['approvalId'];
    if (typeof approvalId !== 'string') continue;
    const elsewhere = (await gate.announce?.(approvalId, part)) ?? [];
    await deps.log.append(sessionId, approvalRequestedEntry(requestFacts(part, approvalId, turnId, actor), [replyTo, ...elsewhere]));
  }
  await deps.log.append(sessionId, { type: 'turn_state', turnId, actor, data: { turnState: 'suspended', approvals: turn.record.wait?.ref } });
  await deps.output.state(turn.record, 'suspended', turn.record.actor);
}

/** What an `approval-request` part says of its request, for the `requested` log entry. */
function requestFacts(part: EmittedPart, approvalId: string, turnId: string, actor: string): Parameters<typeof approvalRequestedEntry>[0] {
  const data = part.part.data ?? {};
  const text = (key: string): string | undefined => (typeof data[key] === 'string' ? data[key] : undefined);
  const toolCallId = text('toolCallId');
  const expiresAt = text('expiresAt');
  const reason = text('reason');
  return {
    approvalId, tool: text('toolName') ?? '', turnId, actor,
    ...(toolCallId === undefined ? {} : { toolCallId }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(reason === undefined ? {} : { reason }),
  };
}
