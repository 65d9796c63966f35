/**
 * Which approval an email reply answers. Our own Message-ID in `In-Reply-To` / `References` is the
 * strong signal; the subject token `[approval:<id>]` is used only when no header names one, and
 * when the two disagree nothing is matched (users edit subjects; headers are ours).
 */
import { approvalIdsInSubject } from './subject.ts';
import { messageIdsIn, type MessageIds } from './message-ids.ts';

/** The reply headers that can point at an approval. */
export interface ReplyPointers {
  readonly inReplyTo?: string | undefined;
  readonly references?: string | readonly string[] | undefined;
  readonly subject?: string | undefined;
}

/** What a reply points at. */
export type ApprovalMatch =
  /** No approval is named: an ordinary message. */
  | { readonly kind: 'none' }
  /** Exactly one approval, and how it was found. */
  | { readonly kind: 'approval'; readonly approvalId: string; readonly by: 'message-id' | 'subject' }
  /** Several approvals named, or headers and subject disagree: refuse, decide nothing. */
  | { readonly kind: 'conflict'; readonly approvalIds: readonly string[] };

/** The approval ids our Message-IDs in `In-Reply-To` and `References` name, nearest first. */
function headerApprovals(pointers: ReplyPointers, ids: MessageIds): string[] {
  const chain = [...messageIdsIn(pointers.inReplyTo), ...messageIdsIn(pointers.references).reverse()];
  const found = chain.flatMap((messageId) => {
    const ours = ids.read(messageId);
    return ours?.kind === 'approval' ? [ours.approvalId] : [];
  });
  return [...new Set(found)];
}

/**
 * Matches a reply to an approval.
 *
 * @example
 * matchApproval({ inReplyTo: '<sb.a.…@example.com>', subject: 'Re: [approval:…] Book BA2043?' }, ids)
 * // { kind: 'approval', approvalId: '…', by: 'message-id' }
 */
export function matchApproval(pointers: ReplyPointers, ids: MessageIds): ApprovalMatch {
  const fromHeaders = headerApprovals(pointers, ids);
  const fromSubject = approvalIdsInSubject(pointers.subject);
  const nearest = messageIdsIn(pointers.inReplyTo).map((messageId) => ids.read(messageId));
  const direct = nearest.find((ours) => ours?.kind === 'approval');
  if (fromHeaders.length > 1 && direct?.kind !== 'approval') return { kind: 'conflict', approvalIds: fromHeaders };
  const header = direct?.kind === 'approval' ? direct.approvalId : fromHeaders[0];
  if (header !== undefined) {
    if (fromSubject.some((id) => id !== header)) return { kind: 'conflict', approvalIds: [header, ...fromSubject.filter((id) => id !== header)] };
    return { kind: 'approval', approvalId: header, by: 'message-id' };
  }
  if (fromSubject.length > 1) return { kind: 'conflict', approvalIds: fromSubject };
  const subject = fromSubject[0];
  return subject === undefined ? { kind: 'none' } : { kind: 'approval', approvalId: subject, by: 'subject' };
}
