/**
 * What a reply to an approval request mail comes to: a decision on that approval (the first line
 * of the visible text, read by the kit's strict parser), or the answer explaining why it cannot
 * decide. Who may decide is not checked here: the atomic decide does that, with the sender's
 * authentication.
 */
import { parseApprovalReply } from '../kit/approvals/parse-reply.ts';
import type { ApprovalStore } from '../../src/runtime/approvals/approval-types.ts';
import { matchApproval } from './approval-match.ts';
import type { ApprovalReplyFacts } from './email-event.ts';
import type { MessageIds } from './message-ids.ts';
import type { MailFacts } from './read-mail.ts';

/** What matching needs. */
export interface ApprovalReplyOptions {
  readonly messageIds: MessageIds;
  readonly approvals: Pick<ApprovalStore, 'get'>;
}

/** The facts of an approval reply, or `undefined` when the mail answers no approval request. */
export async function approvalReplyFacts(facts: MailFacts, options: ApprovalReplyOptions): Promise<ApprovalReplyFacts | undefined> {
  const match = matchApproval({ inReplyTo: facts.inReplyTo, references: facts.references, subject: facts.subject }, options.messageIds);
  if (match.kind === 'none') return undefined;
  if (match.kind === 'conflict') {
    return { answer: 'Your reply points at more than one approval request, so nothing was decided. Please reply to the request mail itself, with APPROVE or DENY as the first word.' };
  }
  const { approvalId } = match;
  const record = await options.approvals.get(approvalId);
  if (record === undefined) return { approvalId, answer: 'That approval request is not known here (it may be too old), so nothing was decided.' };
  const reply = parseApprovalReply(facts.text);
  if (reply.kind === 'none') {
    return { approvalId, answer: `Nothing was decided on ${record.shortCode}: reply with APPROVE or DENY as the first word of your message.` };
  }
  if (reply.code !== undefined && reply.code !== record.shortCode) {
    return { approvalId, answer: `Your reply names ${reply.code}, but it answers the request for ${record.shortCode}, so nothing was decided.` };
  }
  return { approvalId, decision: reply.decision };
}
