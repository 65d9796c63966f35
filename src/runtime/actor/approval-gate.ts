import type { ApprovalRequest } from '../../protocol/parts/approval-parts.ts';
import { createToolHandlerContext } from '../../protocol/tools/tool-handler-context.ts';
import { decidedByLabel } from '../approvals/approval-authority.ts';
import type { ApprovalRecord, ApprovalStore, ChannelIdentity } from '../approvals/approval-types.ts';
import { approvalExpiredEntry } from '../inspect/approval-entries.ts';
import type { Destination, Injection } from '../injection.ts';
import type { ModelInputBlock } from '../model/model-types.ts';
import type { EmittedPart, PendingApproval, TurnRecord } from '../session/turn-record.ts';
import type { ApproverPlan } from './approval-policy-config.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { runToolCall, type ToolCallDeps, type ToolCallOutcome } from './tool-call.ts';

/** What the actor loop needs to ask for approvals. */
export interface ApprovalGate {
  readonly store: ApprovalStore;
  /** Approvers and expiry of a tool. */
  readonly plan: (toolName: string) => ApproverPlan;
  /** Schedules the expiry of an approval (a delayed job). */
  readonly scheduleExpiry: (approvalId: string, at: Date) => Promise<void>;
  /**
   * Shows the request to approvers outside the turn's own conversation, each on their channel.
   * Called after the turn is saved as suspended, once per request part. Resolves to where it
   * showed the request (channel and address), for the log.
   */
  readonly announce?: (approvalId: string, part: EmittedPart) => Promise<readonly Destination[]>;
  /**
   * Words for a tool's requests, added to each `approval-request` part's data: `title` (what the
   * tool does) and `deciders` (who may decide, in words). Default: none.
   */
  readonly describe?: (toolName: string) => { readonly title?: string; readonly deciders?: string };
  /**
   * Withdraws a pending approval whose turn stopped (it ends as expired, and approvers' copies of
   * the request are updated). Default: the store's `expire` alone.
   */
  readonly withdraw?: (approvalId: string) => Promise<void>;
}

/** The identity of the person whose message started the turn. */
export function requesterOf(first: Injection | undefined): ChannelIdentity {
  if (first === undefined) return { channel: 'unknown', address: 'unknown' };
  return {
    channel: first.channel,
    address: first.sender.id,
    verified: first.sender.verified,
    ...(first.sender.personId === undefined ? {} : { personId: first.sender.personId }),
    ...(first.sender.agent === true ? { agent: true } : {}),
  };
}

/**
 * Saves an approval record for each waiting call (before anything is shown to anyone), schedules
 * its expiry, and returns the `approval-request` parts to emit (with the call's `reason`, when it
 * has one: in a turn that read outside content, what it read).
 */
export async function requestApprovals(
  gate: ApprovalGate,
  turn: TurnRecord,
  calls: readonly { toolUseId: string; toolName: string; args: Readonly<Record<string, unknown>>; reason?: string }[],
  requester: ChannelIdentity,
  step: number,
): Promise<{ pending: PendingApproval[]; parts: EmittedPart[]; until: string }> {
  const pending: PendingApproval[] = [];
  const parts: EmittedPart[] = [];
  let until = 0;
  for (const [index, call] of calls.entries()) {
    const plan = gate.plan(call.toolName);
    const record = await gate.store.create({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      actor: turn.actor,
      toolName: call.toolName,
      toolCallId: call.toolUseId,
      args: call.args,
      approvers: plan.approvers,
      requester,
      // A peer that asked is never an approver, even where people may approve their own requests.
      allowRequester: plan.allowRequester && requester.agent !== true,
      ttlMs: plan.ttlMs,
      replyTo: turn.replyTo,
      ...(call.reason === undefined ? {} : { askedBecause: call.reason }),
    });
    await gate.scheduleExpiry(record.approvalId, new Date(record.expiresAt));
    until = Math.max(until, Date.parse(record.expiresAt));
    pending.push({ approvalId: record.approvalId, toolUseId: call.toolUseId, toolName: call.toolName, args: call.args });
    const data: ApprovalRequest & { shortCode: string; argsHash: string; title?: string; deciders?: string } = {
      ...gate.describe?.(call.toolName),
      approvalId: record.approvalId,
      toolName: record.toolName,
      toolCallId: record.toolCallId,
      args: record.args,
      handler: record.actor,
      turn: record.turnId,
      session: record.sessionId,
      expiresAt: record.expiresAt,
      shortCode: record.shortCode,
      argsHash: record.argsHash,
      ...(call.reason === undefined ? {} : { reason: call.reason }),
    };
    parts.push({
      partId: `${turn.turnId}.${step}.approval.${index}`,
      part: { data: { ...data }, metadata: { partType: 'approval-request' } },
      turnState: 'suspended',
      actor: turn.actor,
    });
  }
  return { pending, parts, until: new Date(until).toISOString() };
}

/** Whether every waiting call of the turn has a decision (or is past its expiry). */
export async function approvalsReady(gate: ApprovalGate, pending: readonly PendingApproval[], now: number): Promise<boolean> {
  for (const call of pending) {
    const record = await gate.store.get(call.approvalId);
    if (record?.status === 'pending' && now <= Date.parse(record.expiresAt)) return false;
  }
  return true;
}

function denial(record: ApprovalRecord | undefined, call: PendingApproval): string {
  if (record?.status === 'denied') {
    const who = decidedByLabel(record) ?? 'an approver';
    const reason = record.reason === undefined ? '' : ` Reason: ${record.reason}.`;
    return `ToolDenied: ${who} denied "${call.toolName}" at ${record.decidedAt ?? 'an unknown time'}.${reason} The action was not taken.`;
  }
  return `ToolDenied: the approval for "${call.toolName}" expired at ${record?.expiresAt ?? 'its deadline'} without a decision. The action was not taken.`;
}

/**
 * The tool results of a suspended turn's waiting calls, once decided: a granted call runs its
 * handler exactly once (claimed in Redis, result saved, reused by any later attempt); a denied or
 * expired one gets a ToolDenied result the model reacts to.
 */
export async function resolveApprovals(
  gate: ApprovalGate,
  deps: ToolCallDeps,
  actor: ResolvedActor,
  turn: TurnRecord,
  first: Injection | undefined,
): Promise<{ results: Extract<ModelInputBlock, { type: 'tool_result' }>[]; outcomes: ToolCallOutcome[] }> {
  const results: Extract<ModelInputBlock, { type: 'tool_result' }>[] = [];
  const outcomes: ToolCallOutcome[] = [];
  for (const call of turn.pendingApprovals ?? []) {
    let record = await gate.store.get(call.approvalId);
    if (record?.status === 'pending') {
      const expired = await gate.store.expire(call.approvalId);
      record = expired.record ?? record;
      if (expired.ok) await deps.log.append(turn.sessionId, approvalExpiredEntry(expired.record));
    }
    if (record?.status !== 'granted') {
      results.push({ type: 'tool_result', tool_use_id: call.toolUseId, is_error: true, content: denial(record, call) });
      continue;
    }
    const claim = await gate.store.claimExecution(call.approvalId);
    if (!claim.first) {
      const saved = claim.result;
      results.push({
        type: 'tool_result',
        tool_use_id: call.toolUseId,
        ...(saved === undefined || saved.isError ? { is_error: true } : {}),
        content:
          saved?.content ??
          `The approved "${call.toolName}" was started by a worker that stopped before recording its outcome; it was not run again. Tell the person to check whether it happened.`,
      });
      continue;
    }
    const decider = decidedByLabel(record);
    const context = createToolHandlerContext({
      actorName: turn.actor,
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      tenantId: first?.tenantId,
      userId: first?.sender.id,
      personId: first?.sender.personId,
      approvalDecision: {
        approvalId: record.approvalId,
        decision: 'granted',
        decidedAt: record.decidedAt ?? new Date().toISOString(),
        ...(decider === undefined ? {} : { decidedBy: decider }),
        ...(record.reason === undefined ? {} : { reason: record.reason }),
      },
    });
    const outcome = await runToolCall(deps, actor.tools, { id: call.toolUseId, name: call.toolName, input: record.args }, context);
    await gate.store.saveExecution(call.approvalId, { content: outcome.result.content, isError: outcome.result.is_error === true });
    results.push(outcome.result);
    outcomes.push(outcome);
  }
  return { results, outcomes };
}
