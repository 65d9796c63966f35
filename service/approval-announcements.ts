/**
 * Where an approval is shown: in the conversation of the turn that asked, and to each approver on
 * the channels that can reach them. Requests go out when the turn suspends; updates (decided,
 * expired) go everywhere the request was shown, so every card and thread ends in its final state.
 */
import type { ChannelAdaptor } from '../channels/channel.ts';
import type { ApprovalRecord } from '../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../src/runtime/injection.ts';
import type { EmittedPart } from '../src/runtime/session/turn-record.ts';
import type { WiredChannels } from './channel-wiring.ts';

function sameDestination(a: Destination, b: Destination): boolean {
  return a.channel === b.channel && a.address === b.address;
}

/** The approvers' destinations on enabled channels, without duplicates, other than the turn's own. */
export function approverDestinations(record: ApprovalRecord, adaptors: ReadonlyMap<string, ChannelAdaptor>): Destination[] {
  const found: Destination[] = [];
  for (const approver of record.approvers) {
    for (const adaptor of adaptors.values()) {
      const destination = adaptor.approvals.destinationFor(approver);
      if (destination === undefined || sameDestination(destination, record.replyTo)) continue;
      if (!found.some((seen) => sameDestination(seen, destination))) found.push(destination);
    }
  }
  return found;
}

/** Every destination that shows the approval: the turn's conversation first, then the approvers'. */
export function approvalDestinations(record: ApprovalRecord, adaptors: ReadonlyMap<string, ChannelAdaptor>): Destination[] {
  return [record.replyTo, ...approverDestinations(record, adaptors)];
}

/**
 * Sends the request to every approver outside the turn's own conversation, once per destination;
 * resolves to those destinations.
 */
export async function announceApproval(channels: WiredChannels, record: ApprovalRecord, emitted: EmittedPart): Promise<Destination[]> {
  const destinations = approverDestinations(record, channels.adaptors);
  for (const destination of destinations) {
    await channels.send(
      destination,
      { type: 'approval-request', record, partId: emitted.partId, part: emitted.part, mayDecide: true },
      `${emitted.partId}|${destination.channel}:${destination.address}`,
      { sessionId: record.sessionId, turnId: record.turnId },
    );
  }
  return destinations;
}
