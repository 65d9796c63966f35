/**
 * Approval texts of the SMS channel: the request, one short message, and the update, one line of
 * outcome. SMS requests are GSM-normalised and kept to two segments for typical arguments.
 */
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import { amountText } from '../kit/approvals/argument-lines.ts';
import { callSummary } from '../kit/approvals/decision-answers.ts';
import type { ToolSentences } from '../kit/approvals/describe-request.ts';
import { approvalRequestText, DEFAULT_SHORT_MAX_CHARS, type RequestTextOptions } from '../kit/approvals/request-text.ts';
import { clockTimeOf } from '../kit/approvals/time-phrases.ts';
import { normaliseGsm } from '../kit/render/gsm.ts';
import { smsSegmentCount } from '../kit/render/sms-segments.ts';

/** What approval texts are told with. */
export interface ApprovalTextContext {
  /** The time expiries and decisions are told from. */
  readonly clock: () => Date;
  /** IANA time zone of clock times, e.g. `UTC`. */
  readonly timeZone: string;
  /** Per-tool sentences (`book flight BA2043 …`); none when absent. */
  readonly sentences?: ToolSentences;
}

/** Most SMS segments of an approval request with typical arguments. */
const APPROVAL_SEGMENTS = 2;
/** Approval request lengths tried in turn, in characters: two GSM-7 segments, two UCS-2, three UCS-2. */
const REQUEST_BUDGETS = [DEFAULT_SHORT_MAX_CHARS, 2 * 67, 3 * 67];

function shortRequestOptions(context: ApprovalTextContext): RequestTextOptions {
  return { form: 'short', clock: context.clock, timeZone: context.timeZone, ...(context.sentences === undefined ? {} : { sentences: context.sentences }) };
}

/** Whether an SMS request `text` fits two segments and keeps the call's `amount` (when it has one). */
const fitsTwoSegments = (text: string, amount: string | undefined): boolean =>
  smsSegmentCount(text) <= APPROVAL_SEGMENTS && (amount === undefined || text.includes(amount));

/**
 * The kit's short request. On SMS GSM-normalised, in two segments (306 GSM-7 characters, else 134
 * UCS-2 ones) while that keeps the amount; else in three UCS-2 segments, so the amount is never cut.
 */
export function approvalRequestBody(record: ApprovalRecord, whatsApp: boolean, context: ApprovalTextContext): string {
  const describe = shortRequestOptions(context);
  if (whatsApp) return approvalRequestText(record, describe);
  const amount = amountText(record.args);
  let text = '';
  for (const maxChars of REQUEST_BUDGETS) {
    text = normaliseGsm(approvalRequestText(record, { ...describe, maxChars }));
    if (fitsTwoSegments(text, amount)) break;
  }
  return text;
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

/** `Approval K7QX2M was approved by grace at 10:05 UTC: book_flight (GBP 374.00).`; `undefined` while pending or for the decider. */
export function approvalUpdateText(record: ApprovalRecord, destination: Destination, context: ApprovalTextContext): string | undefined {
  if (record.status === 'pending' || decidedFrom(record, destination)) return undefined;
  const at = clockTimeOf(record.decidedAt ?? record.expiresAt, context.clock(), context.timeZone);
  return `Approval ${record.shortCode} ${outcomeOf(record)} at ${at}: ${callSummary(record, context.sentences)}.${afterwordOf(record)}`;
}
