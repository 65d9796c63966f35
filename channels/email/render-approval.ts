/**
 * Approval mail: the request an approver answers, and the update everyone else gets once it is
 * decided or has expired.
 *
 * Requests carry a fixed Message-ID (`messageIds.forApproval`), which is what a reply is matched
 * by; updates answer it. Out of a thread the subject is `[approval:<id>] Approve: <what>`. In a
 * thread the subject stays `Re: <thread subject>`, without the token and without any stale token
 * from an earlier request: Gmail splits a conversation when the subject changes, and a stale token
 * would disagree with the Message-ID and make the reply a conflict (see `approval-match.ts`).
 */
import type { PhrasingContent } from 'mdast';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import { callSummary } from '../kit/approvals/decision-answers.ts';
import { describeApprovalRequest, type DescribeOptions, type ToolSentences } from '../kit/approvals/describe-request.ts';
import { truncate } from '../kit/approvals/format-value.ts';
import { clockTimeOf } from '../kit/approvals/time-phrases.ts';
import { headingNode, linesNode, paragraphNode, strongNode, textNode } from '../kit/render/mdast-build.ts';
import { nodesContent, type MailContent } from './render-content.ts';
import { threadChain, type MailHeaders, type Thread } from './render-threading.ts';
import { approvalToken, replySubject } from './subject.ts';

/** Longest description of a call in an approval subject, in characters. */
const SUBJECT_WHAT_MAX_CHARS = 100;

/** The two kinds of approval mail. */
export type ApprovalKind = 'approval-request' | 'approval-update';

/** What the headers of one approval mail are made from. */
export interface ApprovalMailFacts {
  readonly record: ApprovalRecord;
  readonly kind: ApprovalKind;
  /** The thread the recipient's mail is in, if any (see `threadOf`). */
  readonly thread: Thread | undefined;
  /** The request's fixed Message-ID for this recipient (`messageIds.forApproval`), with `<>`. */
  readonly requestId: string;
  /** Per-tool sentences that say what the call does. */
  readonly sentences: ToolSentences | undefined;
}

/** `**Label:** value`, one line of the request's facts. */
function labelled(label: string, value: string): PhrasingContent[] {
  return [strongNode(`${label}:`), textNode(` ${value}`)];
}

/**
 * The request mail: what the call does, its arguments, why it is asked (when the record says), who asked, the code, the expiry, and how to
 * decide by replying, or, with `mayDecide: false` (a requester who may not decide), whose approval
 * is awaited. The web chat's card is not mentioned: it is shown only in the web conversation that
 * asked, which no mail recipient can open.
 */
export function requestContent(record: ApprovalRecord, options: DescribeOptions): MailContent {
  const said = describeApprovalRequest(record, { ...options, timeZone: options.timeZone ?? 'UTC' });
  const facts = [
    ...(said.amount === undefined ? [] : [labelled('Amount', said.amount)]),
    labelled('Requested by', said.requestedBy),
    labelled('Code', said.shortCode),
    [textNode(`This request ${said.expiry}.`)],
  ];
  return nodesContent([
    headingNode(said.title, 2),
    paragraphNode(said.summary),
    ...(said.details.length === 0 ? [] : [linesNode(said.details.map((line) => labelled(line.label, line.value)))]),
    ...(said.because === undefined ? [] : [paragraphNode(said.because)]),
    linesNode(facts),
    said.waitingFor === undefined
      ? paragraphNode(strongNode('Reply APPROVE to approve, or DENY to refuse.'), ` Put the word alone on the first line of your reply (the code ${said.shortCode} may follow it).`)
      : paragraphNode(said.waitingFor),
  ]);
}

/** `Request K7QX3M (…) was approved by grace at 10:05 UTC.` (or denied, or expired), clock times as at `now`; the reason follows when given. */
export function updateContent(record: ApprovalRecord, options: DescribeOptions, now: Date): MailContent {
  const what = `Request ${record.shortCode} (${callSummary(record, options.sentences)})`;
  const by = decidedByLabel(record);
  const byWhom = by === undefined ? '' : ` by ${by}`;
  const at = clockTimeOf(record.decidedAt ?? record.expiresAt, now, options.timeZone ?? 'UTC');
  const outcome =
    record.status === 'granted'
      ? `${what} was approved${byWhom} at ${at}.`
      : record.status === 'denied'
        ? `${what} was denied${byWhom} at ${at}. It will not be done.`
        : `${what} expired at ${at} without a decision. It will not be done.`;
  return nodesContent([paragraphNode(outcome), ...(record.reason === undefined ? [] : [paragraphNode(`Reason: ${record.reason}`)])]);
}

/** Whether `destination` is where the decision came from (its decider was told in the answer to their reply). */
export function decidedHere(record: ApprovalRecord, destination: Destination): boolean {
  const by = record.decidedBy;
  return by?.channel === 'email' && by.address.toLowerCase() === destination.address.toLowerCase();
}

/** `subject` without any `[approval:<id>]` token. */
function withoutTokens(subject: string): string {
  return subject.replace(/\s*\[approval:[A-Za-z0-9_-]{22}\]\s*/g, ' ').trim();
}

function approvalSubject(facts: ApprovalMailFacts): string {
  const { record, kind, thread } = facts;
  if (thread?.subject !== undefined) return replySubject(withoutTokens(thread.subject));
  const fresh = `${approvalToken(record.approvalId)} Approve: ${truncate(callSummary(record, facts.sentences), SUBJECT_WHAT_MAX_CHARS)}`;
  return kind === 'approval-request' ? fresh : `Re: ${fresh}`;
}

/** The headers of an approval mail: a request has the fixed Message-ID, in the thread; an update answers the request. */
export function approvalHeaders(facts: ApprovalMailFacts): MailHeaders {
  const subject = approvalSubject(facts);
  const chain = threadChain(facts.thread);
  if (facts.kind === 'approval-request') return { subject, messageId: facts.requestId, inReplyTo: facts.thread?.messageId, references: chain };
  return { subject, inReplyTo: facts.requestId, references: [...chain, facts.requestId] };
}
