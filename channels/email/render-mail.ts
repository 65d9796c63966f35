/**
 * One {@link EmailPayload} from its parts: content laid out as HTML and plain text, both signed,
 * with the threading headers and `Auto-Submitted` (RFC 3834): `auto-replied` for answers and
 * notices that reply to a mail, `auto-generated` for approval mail and for messages that answer no
 * mail (scheduled, proactive).
 */
import type { EmailKind, EmailPayload } from './email-payload.ts';
import type { MailContent } from './render-content.ts';
import { htmlDocument, signedText } from './render-layout.ts';
import { cappedReferences, type MailHeaders } from './render-threading.ts';

/** One mail before its layout: what kind it is, who gets it, what it says and how it threads. */
export interface MailDraft {
  readonly kind: EmailKind;
  /** The recipient's bare address. */
  readonly to: string;
  readonly content: MailContent;
  readonly headers: MailHeaders;
}

function autoSubmittedOf(kind: EmailKind, inReplyTo: string | undefined): EmailPayload['autoSubmitted'] {
  const isApproval = kind === 'approval-request' || kind === 'approval-update';
  return !isApproval && inReplyTo !== undefined ? 'auto-replied' : 'auto-generated';
}

/** The mail of `draft`, signed with `signature` (see `signatureOf`); `References` capped, empty ones left out. */
export function composeMail(draft: MailDraft, signature: string): EmailPayload {
  const { kind, content, headers } = draft;
  return {
    kind,
    to: draft.to,
    subject: headers.subject,
    text: signedText(content.text, signature),
    html: htmlDocument(headers.subject, content.html, signature),
    ...(headers.messageId === undefined ? {} : { messageId: headers.messageId }),
    ...(headers.inReplyTo === undefined ? {} : { inReplyTo: headers.inReplyTo }),
    ...(headers.references === undefined || headers.references.length === 0 ? {} : { references: cappedReferences(headers.references) }),
    autoSubmitted: autoSubmittedOf(kind, headers.inReplyTo),
    attachments: content.attachments,
  };
}
