/**
 * The email channel's renderer: each output becomes at most one mail ({@link EmailPayload}) with an
 * HTML document and a plain-text alternative of the same content, threaded on the mail it answers.
 * Nothing is ever rendered for the bot's own address (no mail loops).
 *
 * The pieces: content (`render-content.ts`), threading and subjects (`render-threading.ts`),
 * approval mail (`render-approval.ts`), the payload and its `Auto-Submitted` (`render-mail.ts`)
 * and the HTML layout and signature (`render-layout.ts`).
 */
import type { RenderInput } from '../channel.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import type { ToolSentences } from '../kit/approvals/describe-request.ts';
import { checkTimeZone } from '../kit/approvals/time-phrases.ts';
import type { EmailPayload } from './email-payload.ts';
import type { MessageIds } from './message-ids.ts';
import { approvalHeaders, decidedHere, requestContent, updateContent, type ApprovalKind } from './render-approval.ts';
import { partsContent, type MailContent } from './render-content.ts';
import { signatureOf } from './render-layout.ts';
import { composeMail } from './render-mail.ts';
import { bracketedMessageId, replyHeaders, threadOf } from './render-threading.ts';

export { MAX_REFERENCES } from './render-threading.ts';

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

function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
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
  const signature = signatureOf(options.from, options.fromAddress);

  const reply = (destination: Destination, kind: 'answer' | 'notice', content: MailContent | undefined, inReplyTo?: string): EmailPayload[] => {
    if (content === undefined) return [];
    const headers = replyHeaders(threadOf(destination), content, inReplyTo, `Message from ${signature}`);
    return [composeMail({ kind, to: destination.address, content, headers }, signature)];
  };

  const approval = (destination: Destination, record: ApprovalRecord, kind: ApprovalKind, content: MailContent): EmailPayload[] => {
    const requestId = options.messageIds.forApproval(record.approvalId, destination.address);
    const headers = approvalHeaders({ record, kind, thread: threadOf(destination), requestId, sentences: options.sentences });
    return [composeMail({ kind, to: destination.address, content, headers }, signature)];
  };

  return (input, destination) => {
    if (sameAddress(destination.address, options.fromAddress)) return [];
    switch (input.type) {
      case 'envelope':
        return reply(destination, 'answer', partsContent(input.parts));
      case 'part':
        return reply(destination, 'answer', partsContent([input.part]));
      case 'notice':
        return reply(destination, 'notice', partsContent([{ text: input.text, metadata: { partType: 'response' } }]), bracketedMessageId(input.inReplyTo));
      case 'approval-request':
        return approval(destination, input.record, 'approval-request', requestContent(input.record, { ...options, clock, mayDecide: input.mayDecide ?? true }));
      case 'approval-update':
        // The decider already got the answer to their reply; everyone else learns the outcome here.
        return input.record.status === 'pending' || decidedHere(input.record, destination) ? [] : approval(destination, input.record, 'approval-update', updateContent(input.record, options, clock()));
      case 'turn':
        return [];
    }
  };
}
