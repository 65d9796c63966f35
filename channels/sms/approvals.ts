/**
 * Approvals by text: requests go to approvers' `sms` numbers, and a reply `APPROVE K7QX3M` /
 * `DENY K7QX3M` decides (the kit's parser; a bare verb only with exactly one pending approval).
 */
import type { ChannelApprovals } from '../channel.ts';

/** The SMS channel's approvals. */
export const smsApprovals: ChannelApprovals = {
  textReplies: true,
  destinationFor: (approver) => (approver.channel === 'sms' && /^\+[1-9][0-9]{1,14}$/.test(approver.address) ? { channel: 'sms', address: approver.address } : undefined),
};
