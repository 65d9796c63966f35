/**
 * An approval's outcome as one line, for the people who were asked and did not decide from that
 * address (SMS, WhatsApp): `Approval K7QX2M was approved by grace at 10:05 UTC: book flight BA2043.`
 */
import type { ApprovalRecord } from '../../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../../src/runtime/injection.ts';
import { decidedByLabel } from '../../../src/runtime/approvals/approval-authority.ts';
import { callSummary } from './decision-answers.ts';
import type { ToolSentences } from './describe-request.ts';
import { clockTimeOf } from './time-phrases.ts';

/** What approval texts are told with. */
export interface ApprovalTextContext {
  /** The time expiries and decisions are told from. */
  readonly clock: () => Date;
  /** IANA time zone of clock times, e.g. `UTC`. */
  readonly timeZone: string;
  /** Per-tool sentences (`book flight BA2043 …`); none when absent. */
  readonly sentences?: ToolSentences;
}

/** Whether `destination` is where the decision came from (the decider was answered there already). */
function decidedFrom(record: ApprovalRecord, destination: Destination): boolean {
  const by = record.decidedBy;
  return by?.channel === destination.channel && by.address === destination.address;
}

/** `was approved by grace`, `was denied`, `expired without a decision`. */
function outcomeOf(record: ApprovalRecord): string {
  if (record.status === 'expired') return 'expired without a decision';
  const who = decidedByLabel(record);
  return `was ${record.status === 'granted' ? 'approved' : 'denied'}${who === undefined ? '' : ` by ${who}`}`;
}

/** What follows the summary: ` It will not be done.` unless granted, then ` Reason: …` when given. */
function afterwordOf(record: ApprovalRecord): string {
  return `${record.status === 'granted' ? '' : ' It will not be done.'}${record.reason === undefined ? '' : ` Reason: ${record.reason}`}`;
}

/** The outcome line, e.g. `Approval K7QX2M was approved by grace at 10:05 UTC: book_flight (GBP 374.00).`; `undefined` while pending or for the decider. */
export function approvalUpdateText(record: ApprovalRecord, destination: Destination, context: ApprovalTextContext): string | undefined {
  if (record.status === 'pending' || decidedFrom(record, destination)) return undefined;
  const at = clockTimeOf(record.decidedAt ?? record.expiresAt, context.clock(), context.timeZone);
  return `Approval ${record.shortCode} ${outcomeOf(record)} at ${at}: ${callSummary(record, context.sentences)}.${afterwordOf(record)}`;
}
