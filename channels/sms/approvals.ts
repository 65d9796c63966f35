/**
 * Approvals by text: requests go to approvers' `sms` numbers (and, while the WhatsApp channel is
 * off, their `whatsapp` numbers through Twilio's WhatsApp addresses), and a reply `APPROVE K7QX3M`
 * / `DENY K7QX3M` decides (the kit's parser; a bare verb only with exactly one pending approval).
 */
import type { ChannelApprovals } from '../channel.ts';

const E164 = /^\+[1-9][0-9]{1,14}$/;

/**
 * The SMS channel's approvals. `whatsAppChannelOn`: the WhatsApp channel serves people's
 * `whatsapp` numbers itself, so they are not also asked through Twilio.
 */
export function smsApprovals(whatsAppChannelOn: boolean): ChannelApprovals {
  return {
    textReplies: true,
    destinationFor(approver) {
      if (!E164.test(approver.address)) return undefined;
      if (approver.channel === 'sms') return { channel: 'sms', address: approver.address };
      if (approver.channel === 'whatsapp' && !whatsAppChannelOn) return { channel: 'sms', address: `whatsapp:${approver.address}` };
      return undefined;
    },
  };
}
