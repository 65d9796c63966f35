/**
 * An approval request in plain words, as a neutral structure each channel lays out its own way
 * (an SMS line, an email, a Slack section). No Markdown, no JSON.
 */
import type { ApprovalRecord } from '../../../src/runtime/approvals/approval-types.ts';
import { describeIdentity } from '../../../src/runtime/approvals/approval-authority.ts';
import { amountText, argumentLines, type ArgumentLine } from './argument-lines.ts';
import { oneLine } from './format-value.ts';
import { checkTimeZone, expiryPhrase } from './time-phrases.ts';

/**
 * What a tool call will do, as a verb phrase completing "<actor> wants to ..." (no final full
 * stop), e.g. `book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50`. It receives the
 * arguments unchecked; when it throws or returns nothing, the default sentence is used.
 */
export type ToolSentence = (args: Readonly<Record<string, unknown>>) => string;

/** Sentences by tool name, supplied by the app (see `bookFlightSentence` for an example). */
export type ToolSentences = Readonly<Record<string, ToolSentence>>;

/** Options of {@link describeApprovalRequest}. */
export interface DescribeOptions {
  /** Per-tool sentences. Default: none, so every tool reads "<actor> wants to run <tool> with:". */
  readonly sentences?: ToolSentences;
  /** The time the expiry is counted from. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** IANA time zone of clock times (`15:30 UTC`). Default `UTC`. */
  readonly timeZone?: string;
  /** Longest argument value, in characters; longer values end in `...`. Default 80. */
  readonly maxValueChars?: number;
  /**
   * Whether the recipient may decide (an approver, or the requester when the record allows it).
   * `false` replaces every instruction with {@link ApprovalDescription.waitingFor}. Default `true`.
   */
  readonly mayDecide?: boolean;
}

/** An approval request in plain words. Every field is Markdown-free text. */
export interface ApprovalDescription {
  /** `Approval needed: book_flight`. */
  readonly title: string;
  /**
   * What the tool will do, as a sentence: `concierge wants to book flight MW 304 ... .` from the
   * tool's sentence, else `concierge wants to run book_flight with:` (the details follow).
   */
  readonly summary: string;
  /** The verb phrase alone (`book flight MW 304 ...`), or `undefined` when the default sentence is used. */
  readonly action?: string;
  /** The arguments, one `Label: value` each. */
  readonly details: readonly ArgumentLine[];
  /** `EUR 412.50`, when an argument holds an amount (`totalCost`, `amount`, `price`...). */
  readonly amount?: string;
  /** Who asked: the requester's person id, else `<channel> <address>`. */
  readonly requestedBy: string;
  /** `expires in 4 hours, at 15:30 UTC` (or `expired at ...`), lower-case, no full stop. */
  readonly expiry: string;
  /** Whether the expiry has passed at the clock's time. */
  readonly expired: boolean;
  readonly shortCode: string;
  /** `Reply APPROVE K7QX3M or DENY K7QX3M`. */
  readonly replyInstruction: string;
  /**
   * `Asked because this turn read content from outside: email body.`: present when the record says
   * why it is asked beyond the tool's policy.
   */
  readonly because?: string;
  /**
   * `Waiting for grace's approval.`: present only when the recipient may not decide (see
   * {@link DescribeOptions.mayDecide}); it is then shown instead of any instruction or button.
   */
  readonly waitingFor?: string;
}

/** Default {@link DescribeOptions.maxValueChars}. */
export const DEFAULT_MAX_VALUE_CHARS = 80;

/** The sentence's verb phrase for `record`, or `undefined` when there is none or it failed. */
export function actionOf(record: Pick<ApprovalRecord, 'toolName' | 'args'>, sentences: ToolSentences | undefined): string | undefined {
  const sentence = sentences === undefined || !Object.hasOwn(sentences, record.toolName) ? undefined : sentences[record.toolName];
  if (sentence === undefined) return undefined;
  try {
    const phrase = oneLine(sentence(record.args)).replace(/[.\s]+$/u, '');
    return phrase === '' ? undefined : phrase;
  } catch {
    return undefined;
  }
}

/** `Reply APPROVE <code> or DENY <code>`: the only words the reply parser needs. */
export function replyInstruction(shortCode: string): string {
  return `Reply APPROVE ${shortCode} or DENY ${shortCode}`;
}

/**
 * What a recipient who may not decide is told instead of how to decide: `Waiting for grace's
 * approval.`, `Waiting for approval from grace, ada or bob.` Each approver is named once, by
 * {@link describeIdentity} (their person, else `<channel> <address>`).
 */
export function waitingForText(record: Pick<ApprovalRecord, 'approvers'>): string {
  const names = [...new Set(record.approvers.map(describeIdentity))];
  const last = names.at(-1);
  if (last === undefined) return 'Waiting for an approver.';
  if (names.length === 1) return `Waiting for ${last}'s approval.`;
  return `Waiting for approval from ${names.slice(0, -1).join(', ')} or ${last}.`;
}

/**
 * Describes an approval request for a person: title, sentence, arguments, amount, why it is asked
 * (when the record says), expiry, short code and how to answer (or, for a recipient who may not decide, whose approval is awaited).
 * Throws `SwitchboardError('config.invalid')` for an unknown time zone.
 *
 * @example
 * const text = describeApprovalRequest(record, { sentences: { book_flight: bookFlightSentence }, clock });
 * // text.summary === 'concierge wants to book flight MW 304 on Fri 18 Dec 2026 for Ada Lovelace, EUR 412.50.'
 */
export function describeApprovalRequest(record: ApprovalRecord, options: DescribeOptions = {}): ApprovalDescription {
  const timeZone = checkTimeZone(options.timeZone ?? 'UTC');
  const now = (options.clock ?? (() => new Date()))();
  const action = actionOf(record, options.sentences);
  const expiry = expiryPhrase(record.expiresAt, now, timeZone);
  const amount = amountText(record.args);
  return {
    title: `Approval needed: ${record.toolName}`,
    summary: action === undefined ? `${record.actor} wants to run ${record.toolName} with:` : `${record.actor} wants to ${action}.`,
    ...(action === undefined ? {} : { action }),
    details: argumentLines(record.args, options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS),
    ...(amount === undefined ? {} : { amount }),
    requestedBy: describeIdentity(record.requester),
    expiry: expiry.text,
    expired: expiry.expired,
    shortCode: record.shortCode,
    replyInstruction: replyInstruction(record.shortCode),
    ...(record.askedBecause === undefined ? {} : { because: `Asked because ${oneLine(record.askedBecause)}.` }),
    ...(options.mayDecide === false ? { waitingFor: waitingForText(record) } : {}),
  };
}
