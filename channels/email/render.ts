/**
 * The email channel's renderer: each output becomes at most one mail ({@link EmailPayload}) with an
 * HTML document and a plain-text alternative of the same content, threaded on the mail it answers.
 *
 * Threading (from `destination.thread`, set by the inbound side: `messageId`, `references`,
 * `subject`): `In-Reply-To` is the answered mail, `References` its chain plus it (at most
 * {@link MAX_REFERENCES}, the root kept), the subject `Re: <its subject>`. Without a thread the
 * subject is the content's first heading, else its first line.
 *
 * `Auto-Submitted` (RFC 3834): `auto-replied` for answers and notices that reply to a mail,
 * `auto-generated` for approval mail and for messages that answer no mail (scheduled, proactive).
 *
 * Approval requests carry a fixed Message-ID (`messageIds.forApproval`), which is what a reply is
 * matched by. Out of a thread their subject is `[approval:<id>] Approve: <what>`. In a thread the
 * subject stays `Re: <thread subject>`, without the token and without any stale token from an
 * earlier request: Gmail splits a conversation when the subject changes, and a stale token would
 * disagree with the Message-ID and make the reply a conflict (see `approval-match.ts`).
 */
import type { PhrasingContent, Root, RootContent } from 'mdast';
import type { RenderInput } from '../channel.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import { callSummary } from '../kit/approvals/decision-answers.ts';
import { describeApprovalRequest, type ToolSentences } from '../kit/approvals/describe-request.ts';
import { truncate } from '../kit/approvals/format-value.ts';
import { checkTimeZone, clockTimeOf } from '../kit/approvals/time-phrases.ts';
import { attachmentLinks } from '../kit/render/artifacts.ts';
import { escapeHtmlText } from '../kit/render/html-escape.ts';
import { headingNode, linesNode, paragraphNode, strongNode, textNode } from '../kit/render/mdast-build.ts';
import { renderForChannel } from '../kit/render/render-for-channel.ts';
import { renderHtml } from '../kit/render/render-html.ts';
import { renderPlain } from '../kit/render/render-plain.ts';
import type { EmailAttachment, EmailKind, EmailPayload } from './email-payload.ts';
import { messageIdsIn, type MessageIds } from './message-ids.ts';
import { approvalToken, replySubject } from './subject.ts';

/** Options of {@link createEmailRender}. */
export interface EmailRenderOptions {
  /** The `From:` header value (`EMAIL_FROM`), e.g. `Concierge <bot@example.com>`; its name signs every mail. */
  readonly from: string;
  /** The bare address of `from`; nothing is ever rendered for it (no mail loops). */
  readonly fromAddress: string;
  /** Makes the fixed Message-IDs of approval requests (and the `In-Reply-To` of their updates). */
  readonly messageIds: MessageIds;
  /** IANA time zone of the clock times in approval mail. Default `UTC`. */
  readonly timeZone?: string;
  /** The time approval expiries are counted from. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** Per-tool sentences of approval requests (`book flight MW 304 …`). Default none. */
  readonly sentences?: ToolSentences;
}

/** The renderer: one output for one destination to its mails (none when nothing is to be shown). */
export type EmailRender = (input: RenderInput, destination: Destination) => EmailPayload[];

/** Most Message-IDs kept in `References`: the root and the newest others. */
export const MAX_REFERENCES = 20;

/** Longest subject made from content, in characters. */
const SUBJECT_MAX_CHARS = 78;

/** Longest description of a call in an approval subject, in characters. */
const SUBJECT_WHAT_MAX_CHARS = 100;

/** How an `approval-request` part reads in the requester's own mail (approvers get their own request). */
const APPROVAL_PART_PROMPT = 'This waits for a decision; every approver gets a request of their own to answer.';

/** What one mail says and which files it carries, before threading and layout. */
interface Content {
  readonly html: string;
  readonly text: string;
  readonly attachments: readonly EmailAttachment[];
  /** The subject the content itself suggests (a heading), if any. */
  readonly title?: string | undefined;
}

/** Threading facts of the answered mail. */
interface Thread {
  readonly messageId?: string | undefined;
  readonly references: readonly string[];
  readonly subject?: string | undefined;
}

const TAG_STYLES: Readonly<Record<string, string>> = {
  p: 'margin:0 0 12px',
  h2: 'margin:20px 0 8px;font-size:19px',
  h3: 'margin:18px 0 8px;font-size:17px',
  h4: 'margin:16px 0 8px;font-size:15px',
  ul: 'margin:0 0 12px;padding-left:22px',
  ol: 'margin:0 0 12px;padding-left:22px',
  table: 'border-collapse:collapse;width:100%;margin:0 0 16px;font-size:14px',
  th: 'text-align:left;padding:6px 8px;border-bottom:2px solid #d0d7de;background:#f6f8fa',
  td: 'text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid #e5e7eb',
  pre: 'white-space:pre-wrap;background:#f6f8fa;padding:8px;border-radius:4px',
  blockquote: 'margin:0 0 12px;padding-left:10px;border-left:3px solid #d0d7de;color:#57606a',
};

/** Inline styles on the kit's attribute-free tags (text is escaped, so only real tags match). */
function styled(fragment: string): string {
  return fragment.replace(/<(p|h2|h3|h4|ul|ol|table|th|td|pre|blockquote)(?=[\s>])/g, (match, tag: string) => `${match} style="${TAG_STYLES[tag] ?? ''}"`);
}

function htmlDocument(subject: string, body: string, signature: string): string {
  const font = 'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1f2328';
  return [
    '<!DOCTYPE html>',
    `<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtmlText(subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:#ffffff"><div style="max-width:640px;margin:0 auto;padding:16px;${font}">`,
    styled(body),
    `<p style="margin:24px 0 0;font-size:13px;color:#656d76">${escapeHtmlText(signature)}</p>`,
    '</div></body></html>',
  ].join('\n');
}

function mdast(nodes: readonly RootContent[]): Root {
  return { type: 'root', children: [...nodes] };
}

function joined(parts: readonly string[], separator: string): string {
  return parts.filter((part) => part.trim() !== '').join(separator);
}

function partsContent(parts: readonly Part[]): Content | undefined {
  const mail = renderForChannel({ format: 'email' }, parts, { approvalPrompt: () => APPROVAL_PART_PROMPT });
  const files = mail.attachments.filter((attachment) => attachment.artifactId !== undefined);
  const links = mdast(attachmentLinks(mail.attachments.filter((attachment) => attachment.artifactId === undefined)));
  const html = joined([mail.html, renderHtml(links)], '\n');
  const listed = files.length > 0 && mail.text.trim() === '' ? `Attached: ${files.map((file) => file.name).join(', ')}` : '';
  const text = joined([mail.text, renderPlain(links), listed], '\n\n');
  if (text === '' && files.length === 0) return undefined;
  return { html: html === '' ? `<p>${escapeHtmlText(listed)}</p>` : html, text, attachments: files, title: mail.subject };
}

function nodesContent(nodes: readonly RootContent[]): Content {
  return { html: renderHtml(mdast(nodes)), text: renderPlain(mdast(nodes)), attachments: [] };
}

function labelled(label: string, value: string): PhrasingContent[] {
  return [strongNode(`${label}:`), textNode(` ${value}`)];
}

function requestContent(record: ApprovalRecord, options: EmailRenderOptions): Content {
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
    linesNode(facts),
    paragraphNode(strongNode('Reply APPROVE to approve, or DENY to refuse.'), ` Put the word alone on the first line of your reply (the code ${said.shortCode} may follow it).`),
    paragraphNode('You can also decide on the approval card in the web chat.'),
  ]);
}

function updateContent(record: ApprovalRecord, options: EmailRenderOptions, now: Date): Content {
  const timeZone = options.timeZone ?? 'UTC';
  const what = `Request ${record.shortCode} (${callSummary(record, options.sentences)})`;
  const by = decidedByLabel(record);
  const at = clockTimeOf(record.decidedAt ?? record.expiresAt, now, timeZone);
  const outcome =
    record.status === 'granted'
      ? `${what} was approved${by === undefined ? '' : ` by ${by}`} at ${at}.`
      : record.status === 'denied'
        ? `${what} was denied${by === undefined ? '' : ` by ${by}`} at ${at}. It will not be done.`
        : `${what} expired at ${at} without a decision. It will not be done.`;
  return nodesContent([paragraphNode(outcome), ...(record.reason === undefined ? [] : [paragraphNode(`Reason: ${record.reason}`)])]);
}

function threadOf(destination: Destination): Thread | undefined {
  const thread = destination.thread;
  const messageId = messageIdsIn(thread?.['messageId'])[0];
  const subject = thread?.['subject'];
  if (messageId === undefined && subject === undefined) return undefined;
  return { messageId, references: messageIdsIn(thread?.['references']), subject };
}

/** `ids` without repeats (first kept), at most {@link MAX_REFERENCES}: the root and the newest. */
function capped(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  return unique.length <= MAX_REFERENCES ? unique : [...unique.slice(0, 1), ...unique.slice(-(MAX_REFERENCES - 1))];
}

/** A Message-ID with its `<>`, however it was given. */
/** `messageId` with its `<>`, or `undefined` when it is not a Message-ID (a notice's `inReplyTo` may be another channel's id). */
function bracketed(messageId: string | undefined): string | undefined {
  const bare = messageId?.trim().replace(/^<|>$/g, '');
  return bare === undefined || !/^[^\s<>@]+@[^\s<>@]+$/.test(bare) ? undefined : `<${bare}>`;
}

/** Whether `destination` is where the decision came from (its decider was told in the answer to their reply). */
function decidedHere(record: ApprovalRecord, destination: Destination): boolean {
  const by = record.decidedBy;
  return by?.channel === 'email' && by.address.toLowerCase() === destination.address.toLowerCase();
}

function withoutTokens(subject: string): string {
  return subject.replace(/\s*\[approval:[A-Za-z0-9_-]{22}\]\s*/g, ' ').trim();
}

function freshSubject(content: Content, fallback: string): string {
  const first = content.title ?? content.text.split('\n').find((line) => line.trim() !== '') ?? fallback;
  return truncate(first.replace(/\s+/g, ' ').trim(), SUBJECT_MAX_CHARS);
}

function displayName(from: string, fromAddress: string): string {
  const name = from.replace(/<[^>]*>/g, '').replace(/^[\s"']+|[\s"']+$/g, '');
  return name === '' ? fromAddress : name;
}

/**
 * Creates the renderer. Throws `SwitchboardError('config.invalid')` for an unknown time zone.
 *
 * @example
 * const render = createEmailRender({ from: env.from, fromAddress: env.fromAddress, messageIds });
 * render({ type: 'envelope', turnId, turnState: 'complete', parts }, replyTo); // [{ kind: 'answer', … }]
 */
export function createEmailRender(options: EmailRenderOptions): EmailRender {
  checkTimeZone(options.timeZone ?? 'UTC');
  const clock = options.clock ?? (() => new Date());
  const signature = `${displayName(options.from, options.fromAddress)} · automated assistant`;

  const mail = (destination: Destination, kind: EmailKind, content: Content, headers: { subject: string; messageId?: string; inReplyTo?: string | undefined; references?: readonly string[] }): EmailPayload => ({
    kind,
    to: destination.address,
    subject: headers.subject,
    text: `${content.text}\n\n-- \n${signature}`,
    html: htmlDocument(headers.subject, content.html, signature),
    ...(headers.messageId === undefined ? {} : { messageId: headers.messageId }),
    ...(headers.inReplyTo === undefined ? {} : { inReplyTo: headers.inReplyTo }),
    ...(headers.references === undefined || headers.references.length === 0 ? {} : { references: capped(headers.references) }),
    autoSubmitted: kind !== 'approval-request' && kind !== 'approval-update' && headers.inReplyTo !== undefined ? 'auto-replied' : 'auto-generated',
    attachments: content.attachments,
  });

  const reply = (destination: Destination, kind: EmailKind, content: Content | undefined, inReplyTo?: string): EmailPayload[] => {
    if (content === undefined) return [];
    const thread = threadOf(destination);
    const parent = inReplyTo ?? thread?.messageId;
    const references = [...(thread?.references ?? []), ...(thread?.messageId === undefined ? [] : [thread.messageId]), ...(parent === undefined ? [] : [parent])];
    const subject = thread?.subject === undefined ? freshSubject(content, `Message from ${signature}`) : replySubject(thread.subject);
    return [mail(destination, kind, content, { subject, inReplyTo: parent, references })];
  };

  const approval = (destination: Destination, record: ApprovalRecord, kind: EmailKind, content: Content): EmailPayload[] => {
    const thread = threadOf(destination);
    const requestId = options.messageIds.forApproval(record.approvalId, destination.address);
    const fresh = `${approvalToken(record.approvalId)} Approve: ${truncate(callSummary(record, options.sentences), SUBJECT_WHAT_MAX_CHARS)}`;
    const subject = thread?.subject === undefined ? (kind === 'approval-request' ? fresh : `Re: ${fresh}`) : replySubject(withoutTokens(thread.subject));
    const chain = [...(thread?.references ?? []), ...(thread?.messageId === undefined ? [] : [thread.messageId])];
    if (kind === 'approval-request') return [mail(destination, kind, content, { subject, messageId: requestId, inReplyTo: thread?.messageId, references: chain })];
    return [mail(destination, kind, content, { subject, inReplyTo: requestId, references: [...chain, requestId] })];
  };

  return (input, destination) => {
    if (destination.address.trim().toLowerCase() === options.fromAddress.trim().toLowerCase()) return [];
    switch (input.type) {
      case 'envelope':
        return reply(destination, 'answer', partsContent(input.parts));
      case 'part':
        return reply(destination, 'answer', partsContent([input.part]));
      case 'notice':
        return reply(destination, 'notice', partsContent([{ text: input.text, metadata: { partType: 'response' } }]), bracketed(input.inReplyTo));
      case 'approval-request':
        return approval(destination, input.record, 'approval-request', requestContent(input.record, { ...options, clock }));
      case 'approval-update':
        // The decider already got the answer to their reply; everyone else learns the outcome here.
        return input.record.status === 'pending' || decidedHere(input.record, destination) ? [] : approval(destination, input.record, 'approval-update', updateContent(input.record, options, clock()));
      case 'turn':
        return [];
    }
  };
}
