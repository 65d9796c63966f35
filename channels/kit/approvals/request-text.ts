/**
 * An approval request as plain text: a short form for SMS and WhatsApp-style channels, a long form
 * for email. No line of either starts with a decision word, so quoting the request back never
 * decides (see `parseApprovalReply`).
 */
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { ApprovalRecord } from '../../../src/runtime/approvals/approval-types.ts';
import type { ArgumentLine } from './argument-lines.ts';
import { truncate } from './format-value.ts';
import { describeApprovalRequest, type ApprovalDescription, type DescribeOptions } from './describe-request.ts';

/** Options of {@link approvalRequestText}. */
export interface RequestTextOptions extends DescribeOptions {
  /** `short` (SMS, WhatsApp text) or `long` (email). Default `short`. */
  readonly form?: 'short' | 'long';
  /**
   * Most characters of the short form. Default 306: two concatenated GSM-7 SMS segments. Argument
   * lines are dropped from the end (never the amount) and then the sentence is cut to fit; the
   * expiry and the reply instruction are always kept whole. Ignored by the long form.
   */
  readonly maxChars?: number;
}

/** Default {@link RequestTextOptions.maxChars}: two GSM-7 segments of 153 characters. */
export const DEFAULT_SHORT_MAX_CHARS = 306;

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function inlineDetails(lines: readonly ArgumentLine[], dropped: number): string {
  const shown = lines.map((line) => `${line.label}: ${line.value}`).join('; ');
  return dropped === 0 ? `${shown}.` : `${shown}${shown === '' ? '' : '; '}(+${dropped} more).`;
}

/** Lines to show when only `keep` of them fit: the first ones, plus the amount line wherever it is. */
function firstLines(lines: readonly ArgumentLine[], keep: number): ArgumentLine[] {
  const amount = lines.find((line) => line.isAmount === true);
  const others = lines.filter((line) => line !== amount).slice(0, Math.max(0, amount === undefined ? keep : keep - 1));
  return amount === undefined ? others : lines.filter((line) => line === amount || others.includes(line));
}

function shortText(description: ApprovalDescription, maxChars: number): string {
  const tail = `\n${capitalise(description.expiry)}.\n${description.waitingFor ?? description.replyInstruction}`;
  const head = `Approval ${description.shortCode}: ${description.summary}`;
  const budget = maxChars - tail.length;
  const fit = (text: string): string => `${truncate(text, budget)}${tail}`;
  if (description.action !== undefined) return fit(head);
  const { details } = description;
  for (let keep = details.length; keep >= 0; keep -= 1) {
    const shown = firstLines(details, keep);
    const text = `${head} ${inlineDetails(shown, details.length - shown.length)}`;
    if (text.length <= budget || keep === 0) return fit(text);
  }
  return fit(head);
}

function longText(description: ApprovalDescription): string {
  const details = description.details.map((line) => `${line.label}: ${line.value}`);
  const blocks = [
    description.title,
    description.summary,
    details.join('\n'),
    description.because ?? '',
    [
      `Requested by: ${description.requestedBy}`,
      `Code: ${description.shortCode}`,
      `This request ${description.expiry}.`,
    ].join('\n'),
    description.waitingFor ?? `${description.replyInstruction} as the first line of your answer.`,
  ];
  return blocks.filter((block) => block !== '').join('\n\n');
}

/**
 * The request as plain text.
 *
 * Short form (one sentence, expiry, reply instruction; at most `maxChars`):
 * ```
 * Approval K7QX3M: concierge wants to book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50.
 * Expires in 4 hours, at 15:30 UTC.
 * Reply APPROVE K7QX3M or DENY K7QX3M
 * ```
 * Long form: title, sentence, every argument line, requester, code, expiry and instruction, in
 * blocks separated by blank lines. With `mayDecide: false` (a requester who may not decide) both
 * forms end in `Waiting for grace's approval.` instead of the instruction. Throws `SwitchboardError('config.invalid')` for a `maxChars`
 * that is not a positive integer or an unknown time zone.
 */
export function approvalRequestText(record: ApprovalRecord, options: RequestTextOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_SHORT_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars <= 0) {
    throw new SwitchboardError('config.invalid', `maxChars must be a positive integer, got ${String(maxChars)}`, { details: { maxChars } });
  }
  const description = describeApprovalRequest(record, options);
  return options.form === 'long' ? longText(description) : shortText(description, maxChars);
}
