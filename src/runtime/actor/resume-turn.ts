import type { ModelInputBlock, ModelMessage } from '../model/model-types.ts';
import { approvalsReady, resolveApprovals, type ApprovalGate } from './approval-gate.ts';
import type { TurnExit } from './live-turn.ts';
import type { TurnScope } from './turn-end.ts';
import { toolReadInWords, withReads } from './tainted-turn.ts';
import { currentActor } from './turn-limits.ts';
import { stopped } from './turn-stop.ts';

/**
 * Brings a turn found in the store back to running. A settled turn is settled again (its
 * finishing may have been cut short); a turn suspended for approvals goes on once every approval
 * is decided; any other wait has expired and fails the turn. Returns `undefined` when the turn
 * should run its loop, otherwise how it stopped.
 */
export async function resumeTurn(scope: TurnScope): Promise<TurnExit | undefined> {
  const { deps, turn: { record }, end } = scope;
  if (record.status === 'settled') {
    await end.finish(record.settledAs ?? 'complete');
    return 'settled';
  }
  if (record.status === 'waiting' && (await stopped(scope))) return 'settled';
  if (record.status === 'waiting' && record.pendingApprovals !== undefined && deps.approvals !== undefined) {
    return resumeAfterApprovals(scope, deps.approvals);
  }
  if (record.status === 'waiting') {
    await end.fail('wait_expired', 'The request timed out while waiting, so nothing more was done.');
    return 'settled';
  }
  return undefined;
}

/**
 * A turn suspended for approvals: keeps waiting until all are decided (sending the approval
 * requests again), then runs or denies the waiting calls and hands their results to the model.
 */
async function resumeAfterApprovals(scope: TurnScope, gate: ApprovalGate): Promise<TurnExit | undefined> {
  const { deps, turn, now } = scope;
  if (!(await approvalsReady(gate, turn.record.pendingApprovals ?? [], now()))) {
    await resendApprovalRequests(scope);
    return 'waiting';
  }
  const actor = await currentActor(scope);
  if (actor === undefined) return 'settled';
  const record = turn.record;
  const resolved = await resolveApprovals(gate, { registry: deps.registry, router: deps.router, log: deps.log, now }, actor, record, turn.inbox[0]);
  const order = toolUseOrder(record.messages);
  const content = [...(record.heldResults ?? []), ...resolved.results].sort((a, b) => order(a) - order(b));
  const { wait: _wait, pendingApprovals: _pending, heldResults: _held, ...rest } = record;
  // A granted readsUntrusted call taints the turn, also when its saved result was reused after a crash.
  const read = resolved.results.flatMap((result) => {
    const call = (record.pendingApprovals ?? []).find((pending) => pending.toolUseId === result.tool_use_id);
    return call !== undefined && result.is_error !== true && actor.tools.get(call.toolName)?.readsUntrusted === true ? [toolReadInWords(call.toolName)] : [];
  });
  const untrustedReads = withReads(record.untrustedReads, read);
  turn.record = {
    ...rest,
    status: 'running',
    messages: [...record.messages, { role: 'user', content }],
    dataEvents: [...record.dataEvents, ...resolved.outcomes.flatMap((outcome) => (outcome.dataEvent === undefined ? [] : [outcome.dataEvent]))],
    ...(untrustedReads === undefined ? {} : { untrustedReads }),
  };
  await deps.store.saveTurn(turn.record);
  await deps.inspect?.conversations?.markResumed(record.sessionId, now());
  await deps.log.append(record.sessionId, { type: 'turn_resumed', turnId: record.turnId, actor: turn.record.actor, data: { after: 'approvals', approvals: resolved.results.length } });
  return undefined;
}

/**
 * The suspension is saved before its requests are sent; after a crash in between, send them
 * again (each delivery is idempotent, so a request already shown is not shown twice).
 */
async function resendApprovalRequests({ deps, turn }: TurnScope): Promise<void> {
  for (const part of turn.record.emitted.filter((emitted) => emitted.part.metadata.partType === 'approval-request')) {
    await deps.output.part(turn.record, part);
  }
}

/** Position of each tool_use id in the turn's last assistant message, for ordering results. */
function toolUseOrder(messages: readonly ModelMessage[]): (block: ModelInputBlock) => number {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  const ids = (last?.content ?? []).flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
  return (block) => (block.type === 'tool_result' ? ids.indexOf(block.tool_use_id) : ids.length);
}
