/**
 * The answers a person gets after typing a decision, in plain words: what was decided, or why
 * nothing was.
 */
import { decidedByLabel } from '../../../src/runtime/approvals/approval-authority.ts';
import type { ApprovalRecord, DecisionOutcome } from '../../../src/runtime/approvals/approval-types.ts';
import { amountText } from './argument-lines.ts';
import { actionOf, type ToolSentences } from './describe-request.ts';
import { clockTimeOf } from './time-phrases.ts';

/** What every answer needs besides the outcome. */
export interface AnswerContext {
  readonly now: Date;
  /** IANA time zone of clock times, already checked. */
  readonly timeZone: string;
  readonly sentences?: ToolSentences;
}

/** Most pending approvals listed in one answer. */
const MAX_LISTED = 5;

/** What the call does, briefly: the tool's sentence, else `book_flight (EUR 412.50)`. */
export function callSummary(record: ApprovalRecord, sentences: ToolSentences | undefined): string {
  const action = actionOf(record, sentences);
  if (action !== undefined) return action;
  const amount = amountText(record.args);
  return amount === undefined ? record.toolName : `${record.toolName} (${amount})`;
}

/** `K7QX3M (book_flight, EUR 412.50)`, for lists of pending approvals. */
function listed(record: ApprovalRecord): string {
  const amount = amountText(record.args);
  return `${record.shortCode} (${record.toolName}${amount === undefined ? '' : `, ${amount}`})`;
}

function pendingList(pending: readonly ApprovalRecord[]): string {
  const shown = pending.slice(0, MAX_LISTED).map(listed).join(', ');
  return pending.length > MAX_LISTED ? `${shown} and ${pending.length - MAX_LISTED} more` : shown;
}

/** The answer when the sender's channel could not verify them. Nothing is looked up or decided. */
export const UNVERIFIED_ANSWER =
  'Nothing was decided: this channel could not verify that the message came from you. Please answer where you can be verified.';

/** The answer to `APPROVE <code>` when the code names no pending approval the sender may decide. */
export function unknownCodeAnswer(code: string, pending: readonly ApprovalRecord[]): string {
  const base = `No pending approval ${code} for you, so nothing was decided.`;
  if (pending.length === 0) return base;
  return `${base} Your pending approvals: ${pendingList(pending)}.`;
}

/** The answer to a bare verb when the sender has nothing pending. */
export function nothingPendingAnswer(): string {
  return 'You have no pending approvals, so nothing was decided.';
}

/** The answer to a bare verb when the sender has several approvals pending. */
export function ambiguousAnswer(decision: 'granted' | 'denied', pending: readonly ApprovalRecord[]): string {
  const verb = decision === 'granted' ? 'APPROVE' : 'DENY';
  return `You have ${pending.length} pending approvals: ${pendingList(pending)}. Nothing was decided; reply ${verb} followed by the code of one of them.`;
}

function alreadyDecided(record: ApprovalRecord, context: AnswerContext): string {
  const at = record.decidedAt === undefined ? '' : ` at ${clockTimeOf(record.decidedAt, context.now, context.timeZone)}`;
  if (record.status === 'expired') return `${record.shortCode} had already expired${at}; your answer changed nothing.`;
  if (record.status === 'pending') return `${record.shortCode} could not be decided just now; nothing was changed. Please try again.`;
  const how = record.status === 'granted' ? 'approved' : 'denied';
  return `${record.shortCode} was already ${how} by ${decidedByLabel(record) ?? 'someone'}${at}; your answer changed nothing.`;
}

/**
 * The answer to a decision taken (or refused) by the store, for the approval `record` the reply was
 * matched to. Every refusal has its own words.
 */
export function decisionAnswer(outcome: DecisionOutcome, record: ApprovalRecord, context: AnswerContext): string {
  const code = record.shortCode;
  if (outcome.ok) {
    const summary = callSummary(outcome.record, context.sentences);
    return outcome.record.status === 'granted'
      ? `Approved ${code}: ${summary}. Thanks.`
      : `Denied ${code}: ${summary}. It will not be done.`;
  }
  const current = outcome.record ?? record;
  switch (outcome.refusal) {
    case 'already_decided':
      return alreadyDecided(current, context);
    case 'expired':
      return `Too late: ${code} expired at ${clockTimeOf(current.expiresAt, context.now, context.timeZone)}, so your answer was not recorded.`;
    case 'unverified':
      return `Nothing was decided on ${code}: your message could not be verified as coming from you. Please answer where you can be verified.`;
    case 'not_an_approver':
      return `You are not an approver of ${code}, so nothing was decided.`;
    case 'unknown_approval':
      return `No pending approval ${code} for you, so nothing was decided.`;
    case 'args_mismatch':
      return `${code} changed after it was sent, so nothing was decided. Answer the newest request instead.`;
  }
}
