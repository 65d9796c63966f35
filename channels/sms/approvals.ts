/**
 * Approvals by text: requests go to approvers' `sms` numbers (and their `whatsapp` numbers, through
 * Twilio's WhatsApp addresses), and a reply `APPROVE K7QX3M` / `DENY K7QX3M` decides (the kit's
 * parser; a bare verb only with exactly one pending approval).
 */
import type { ChannelApprovals } from '../channel.ts';

const E164 = /^\+[1-9][0-9]{1,14}$/;

/** The SMS channel's approvals. */
export const smsApprovals: ChannelApprovals = {
  textReplies: true,
  destinationFor(approver) {
    if (!E164.test(approver.address)) return undefined;
    if (approver.channel === 'sms') return { channel: 'sms', address: approver.address };
    if (approver.channel === 'whatsapp') return { channel: 'sms', address: `whatsapp:${approver.address}` };
    return undefined;
  },
};
