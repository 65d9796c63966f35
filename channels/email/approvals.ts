/**
 * Approvals by email: a request mail goes to every approver with an email address; a reply to it
 * decides (matched by our Message-ID, then the subject token, in `intake.ts`), and so does
 * `APPROVE <code>` written in any mail (the kit's text replies). Either way the sender must be an
 * approver and pass sender authentication.
 */
import type { ChannelApprovals } from '../channel.ts';

/** The email channel's approvals. */
export const emailApprovals: ChannelApprovals = {
  textReplies: true,
  destinationFor: (approver) => (approver.channel === 'email' ? { channel: 'email', address: approver.address.toLowerCase() } : undefined),
};
