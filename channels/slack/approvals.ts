/**
 * Approvals on Slack: a Block Kit card with Approve and Deny buttons in the conversation and in
 * each approver's DM (people's `slack: [T123:U456]` addresses); a click is checked against the
 * approvers (user and team) by the atomic decide; `APPROVE ABC123` typed in a thread or DM works
 * too (the kit's parser).
 */
import type { ChannelApprovals } from '../channel.ts';

/** The Slack channel's approvals. */
export const slackApprovals: ChannelApprovals = {
  textReplies: true,
  destinationFor(approver) {
    if (approver.channel !== 'slack') return undefined;
    const [teamId, userId] = approver.address.split(':');
    if (teamId === undefined || userId === undefined || userId === '') return undefined;
    // Posting to a user id opens the app's DM with them.
    return { channel: 'slack', address: userId, thread: { teamId } };
  },
};
