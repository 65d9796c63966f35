/**
 * Approvals on WhatsApp: requests go to approvers' `whatsapp` numbers, as reply buttons (Cloud
 * API) or a text with the short code (web). A tap decides through an `approval-response`
 * injection; a reply `APPROVE K7QX3M` / `DENY K7QX3M` decides in both modes (the kit's parser).
 */
import type { ChannelApprovals } from '../channel.ts';

const E164 = /^\+[1-9][0-9]{1,14}$/;

/** The WhatsApp channel's approvals. */
export const whatsAppApprovals: ChannelApprovals = {
  textReplies: true,
  destinationFor(approver) {
    return approver.channel === 'whatsapp' && E164.test(approver.address) ? { channel: 'whatsapp', address: approver.address } : undefined;
  },
};
