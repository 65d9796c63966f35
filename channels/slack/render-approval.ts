/**
 * Approvals on Slack: the request is one Block Kit card with Approve and Deny buttons, posted under
 * the key `approval:<approvalId>`; the decision (or the expiry) updates that same message, its
 * buttons replaced by one line of outcome.
 */
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { callSummary } from '../kit/approvals/decision-answers.ts';
import { describeApprovalRequest, type ApprovalDescription, type ToolSentences } from '../kit/approvals/describe-request.ts';
import { escapeSlack } from '../kit/render/render-slack.ts';
import { approvalKey, decisionButtons, describedBlocks, outcomeLine, requestContext, type WhenContext } from './render-approval-blocks.ts';
import { contextLine } from './render-blocks.ts';
import { inThread, whereOf } from './render-where.ts';
import type { SlackBlock, SlackPayload } from './slack-payload.ts';

/** What approval cards are told with. */
export interface ApprovalCardContext {
  /** The time expiries are counted from. */
  readonly clock: () => Date;
  /** IANA time zone of fallback clock times, already checked. */
  readonly timeZone: string;
  /** Per-tool sentences (`book flight BA2043 …`); none when absent. */
  readonly sentences?: ToolSentences;
}

interface Described {
  readonly description: ApprovalDescription;
  readonly when: WhenContext;
}

function described(record: ApprovalRecord, context: ApprovalCardContext, mayDecide = true): Described {
  const now = context.clock();
  const sentences = context.sentences === undefined ? {} : { sentences: context.sentences };
  return { description: describeApprovalRequest(record, { clock: () => now, timeZone: context.timeZone, mayDecide, ...sentences }), when: { now, timeZone: context.timeZone } };
}

/** The card's last block while pending: the buttons, or whose approval is awaited for a recipient who may not decide. */
function pendingBlocks(record: ApprovalRecord, description: ApprovalDescription): SlackBlock[] {
  if (description.expired) return [];
  return description.waitingFor === undefined ? [decisionButtons(record)] : [contextLine(escapeSlack(description.waitingFor))];
}

/**
 * The card of a pending request, posted in the destination's thread under the key
 * `approval:<approvalId>`: what the call does, its arguments, code, requester and expiry, then the
 * buttons (left out when the request has already expired). With `mayDecide` false (the requester's
 * conversation, when they may not decide) the buttons are replaced by `Waiting for grace's approval.`
 * Its text: `Approval needed: …`.
 */
export function approvalCard(record: ApprovalRecord, destination: Destination, context: ApprovalCardContext, mayDecide = true): SlackPayload {
  const where = whereOf(destination);
  const { description, when } = described(record, context, mayDecide);
  const blocks = [...describedBlocks(record, description), requestContext(record, description, when), ...pendingBlocks(record, description)];
  const text = `Approval needed: ${callSummary(record, context.sentences)} (code ${record.shortCode})`;
  return { op: 'post', channel: where.channel, ...where.team, ...inThread(where), text: escapeSlack(text), blocks, key: approvalKey(record.approvalId) };
}

/** `Approved by grace: book_flight (GBP 374.00)`, `Denied by …`, `Expired without a decision: …`. */
function outcomeText(record: ApprovalRecord, context: ApprovalCardContext): string {
  const who = decidedByLabel(record) ?? 'someone';
  const outcome = record.status === 'granted' ? `Approved by ${who}` : record.status === 'denied' ? `Denied by ${who}` : 'Expired without a decision';
  return escapeSlack(`${outcome}: ${callSummary(record, context.sentences)}`);
}

/**
 * The update of a decided or expired request's card (found by its key `approval:<approvalId>`):
 * the same description, the buttons replaced by the outcome line. None while pending.
 */
export function approvalCardUpdate(record: ApprovalRecord, destination: Destination, context: ApprovalCardContext): SlackPayload[] {
  if (record.status === 'pending') return [];
  const where = whereOf(destination);
  const { description, when } = described(record, context);
  const blocks = [...describedBlocks(record, description), outcomeLine(record, when)];
  return [{ op: 'update', channel: where.channel, ...where.team, lookupKey: approvalKey(record.approvalId), text: outcomeText(record, context), blocks }];
}
