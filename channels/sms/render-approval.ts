/**
 * The approval request of the SMS channel: one short message, GSM-normalised and kept to two
 * segments for typical arguments. Updates are the kit's one line of outcome (`kit/approvals/update-text.ts`).
 */
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import { amountText } from '../kit/approvals/argument-lines.ts';
import { approvalRequestText, DEFAULT_SHORT_MAX_CHARS, type RequestTextOptions } from '../kit/approvals/request-text.ts';
import type { ApprovalTextContext } from '../kit/approvals/update-text.ts';
import { normaliseGsm } from '../kit/render/gsm.ts';
import { smsSegmentCount } from '../kit/render/sms-segments.ts';

/** Most SMS segments of an approval request with typical arguments. */
const APPROVAL_SEGMENTS = 2;
/** Approval request lengths tried in turn, in characters: two GSM-7 segments, two UCS-2, three UCS-2. */
const REQUEST_BUDGETS = [DEFAULT_SHORT_MAX_CHARS, 2 * 67, 3 * 67];

function shortRequestOptions(context: ApprovalTextContext, mayDecide: boolean): RequestTextOptions {
  return { form: 'short', clock: context.clock, timeZone: context.timeZone, mayDecide, ...(context.sentences === undefined ? {} : { sentences: context.sentences }) };
}

/** Whether an SMS request `text` fits two segments and keeps the call's `amount` (when it has one). */
const fitsTwoSegments = (text: string, amount: string | undefined): boolean =>
  smsSegmentCount(text) <= APPROVAL_SEGMENTS && (amount === undefined || text.includes(amount));

/**
 * The kit's short request. On SMS GSM-normalised, in two segments (306 GSM-7 characters, else 134
 * UCS-2 ones) while that keeps the amount; else in three UCS-2 segments, so the amount is never cut.
 * `mayDecide`: whether the recipient may decide; `false` ends the text in `Waiting for grace's
 * approval.` instead of the reply instruction.
 */
export function approvalRequestBody(record: ApprovalRecord, whatsApp: boolean, context: ApprovalTextContext, mayDecide = true): string {
  const describe = shortRequestOptions(context, mayDecide);
  if (whatsApp) return approvalRequestText(record, describe);
  const amount = amountText(record.args);
  let text = '';
  for (const maxChars of REQUEST_BUDGETS) {
    text = normaliseGsm(approvalRequestText(record, { ...describe, maxChars }));
    if (fitsTwoSegments(text, amount)) break;
  }
  return text;
}
