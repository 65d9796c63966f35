/**
 * The blocks of a Slack approval card: what the tool will do (header, sentence, amount), its
 * arguments as fields, the code, requester and expiry, and the Approve / Deny buttons; once
 * decided, the outcome line that replaces the buttons.
 */
import type { types } from '@slack/bolt';
import { describeIdentity } from '../../src/runtime/approvals/approval-authority.ts';
import type { ApprovalRecord, ChannelIdentity } from '../../src/runtime/approvals/approval-types.ts';
import type { ApprovalDescription } from '../kit/approvals/describe-request.ts';
import { truncate } from '../kit/approvals/format-value.ts';
import { approvalTitle } from '../kit/render/approval-text.ts';
import { escapeSlack } from '../kit/render/render-slack.ts';
import { contextLine, fieldsSection, headerBlock, MAX_FIELDS, sectionText, slackDate, textSection } from './render-blocks.ts';
import type { SlackBlock } from './slack-payload.ts';

/** The `action_id` of the Approve button, read back by the inbound route. */
export const APPROVE_ACTION = 'approval.approve';
/** The `action_id` of the Deny button. */
export const DENY_ACTION = 'approval.deny';

/** What the clock-dependent lines are told with. */
export interface WhenContext {
  readonly now: Date;
  /** IANA time zone of fallback clock times, already checked. */
  readonly timeZone: string;
}

/** The key of an approval's card (its `block_id`, and the name its message's `ts` is kept under). */
export function approvalKey(approvalId: string): string {
  return `approval:${approvalId}`;
}

/** A person on a card: a Slack user as a mention (Slack shows their name), else the kit's label, escaped. */
export function whoLabel(identity: ChannelIdentity | undefined): string {
  if (identity === undefined) return 'someone';
  const user = identity.channel === 'slack' ? identity.address.split(':').at(-1) : undefined;
  return user !== undefined && /^[UW][A-Z0-9]+$/.test(user) ? `<@${user}>` : escapeSlack(describeIdentity(identity));
}

/**
 * `*Label*\nvalue` fields of the arguments but the amount (shown above them), at most
 * {@link MAX_FIELDS}: the last says how many more when cut.
 */
function argumentFields(description: ApprovalDescription): string[] {
  const lines = description.details.filter((line) => line.isAmount !== true);
  const fields = lines.map((line) => `*${escapeSlack(truncate(line.label, 100))}*\n${escapeSlack(line.value)}`);
  if (fields.length <= MAX_FIELDS) return fields;
  return [...fields.slice(0, MAX_FIELDS - 1), `_and ${fields.length - MAX_FIELDS + 1} more_`];
}

/**
 * What the call is: header, sentence, the amount (on a line of its own unless the sentence says
 * it), argument fields, why it is asked (when the record says). Shown before and after the decision.
 */
export function describedBlocks(record: ApprovalRecord, description: ApprovalDescription): SlackBlock[] {
  const { amount: value, summary } = description;
  const amount = value === undefined || summary.includes(value) ? '' : `\n*Amount:* ${escapeSlack(value)}`;
  const fields = argumentFields(description);
  return [
    headerBlock(approvalTitle(record)),
    textSection(`${sectionText(summary)}${amount}`),
    ...(fields.length === 0 ? [] : [fieldsSection(fields)]),
    ...(description.because === undefined ? [] : [contextLine(escapeSlack(description.because))]),
  ];
}

/** `Code *K7QX2M* · Requested by … · Expires today at 2:00 PM` (or `Expired …`). */
export function requestContext(record: ApprovalRecord, description: ApprovalDescription, when: WhenContext): SlackBlock {
  const expiry = `${description.expired ? 'Expired' : 'Expires'} ${slackDate(record.expiresAt, when.now, when.timeZone)}`;
  return contextLine(`Code *${escapeSlack(record.shortCode)}*  ·  Requested by ${whoLabel(record.requester)}  ·  ${expiry}`);
}

function button(label: string, actionId: string, style: 'primary' | 'danger', record: ApprovalRecord): types.Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: label },
    action_id: actionId,
    style,
    value: JSON.stringify({ approvalId: record.approvalId, argsHash: record.argsHash }),
    accessibility_label: `${label} ${record.shortCode}`,
  };
}

/** Approve (primary) and Deny (danger), valued `{"approvalId":…,"argsHash":…}`, in block `approval:<approvalId>`. */
export function decisionButtons(record: ApprovalRecord): types.ActionsBlock {
  return {
    type: 'actions',
    block_id: approvalKey(record.approvalId),
    elements: [button('Approve', APPROVE_ACTION, 'primary', record), button('Deny', DENY_ACTION, 'danger', record)],
  };
}

/** `:white_check_mark: Approved by <@U…> today at 2:02 PM` / `:x: Denied by …` (with the reason) / `:hourglass: Expired …`. */
export function outcomeLine(record: ApprovalRecord, when: WhenContext): SlackBlock {
  if (record.status === 'expired') return contextLine(`:hourglass: Expired ${slackDate(record.expiresAt, when.now, when.timeZone)}`);
  const [mark, verb] = record.status === 'granted' ? [':white_check_mark:', 'Approved'] : [':x:', 'Denied'];
  const at = record.decidedAt === undefined ? '' : ` ${slackDate(record.decidedAt, when.now, when.timeZone)}`;
  const reason = record.reason === undefined ? '' : `. Reason: ${escapeSlack(truncate(record.reason, 300))}`;
  return contextLine(`${mark} ${verb} by ${whoLabel(record.decidedBy)}${at}${reason}`);
}
