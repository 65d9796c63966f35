/**
 * The event the email listener hands to `normalise`: one mail already read, checked and placed
 * (sender authentication, thread, approval reply, attachments stored). Everything asynchronous
 * happened before, so normalising is a pure function of this object.
 */
import type { StoredAttachment } from '../kit/kept-files.ts';

/** What an approval reply comes to. */
export type ApprovalReplyFacts =
  /** A decision on one approval, to go through the atomic decide. */
  | { readonly approvalId: string; readonly decision: 'granted' | 'denied' }
  /** A reply that cannot decide (no decision word, two approvals named, a wrong code): the answer to send. */
  | { readonly approvalId?: string; readonly answer: string };


/** One inbound mail, ready to normalise. */
export interface EmailEvent {
  readonly type: 'email';
  readonly uidValidity: number;
  readonly uid: number;
  /** The mail's Message-ID, with `<>`. */
  readonly messageId: string;
  /** The mail's References, space-separated, for the answer's own References. */
  readonly references: string;
  readonly subject: string;
  /** Sender address, lower-case. */
  readonly from: string;
  readonly fromName?: string;
  /** See `threads.ts`: the sender and the thread. */
  readonly conversationKey: string;
  /** The visible text of the mail, with notes about what could not be kept. */
  readonly text: string;
  readonly attachments: readonly StoredAttachment[];
  /** Sender authentication (DKIM/DMARC, or the trusted Authentication-Results). */
  readonly verified: boolean;
  readonly basis: string;
  /** Set when the mail answers one of our approval requests. */
  readonly approval?: ApprovalReplyFacts;
  /** ISO 8601. */
  readonly receivedAt: string;
}
