/**
 * Who may decide an approval. This is checked separately from matching a reply to an approval: a
 * button value, a short code or a mail thread proves which approval a reply is about, not that the
 * sender may decide it.
 */
import type { ApprovalRecord, ChannelIdentity } from './approval-types.ts';

/**
 * Whether `a` and `b` are the same person: same channel and same address (compared exactly), or the
 * same configured `personId` when both carry one.
 */
export function sameIdentity(a: ChannelIdentity, b: ChannelIdentity): boolean {
  if (a.channel === b.channel && a.address === b.address) return true;
  return a.personId !== undefined && b.personId !== undefined && a.personId === b.personId;
}

/** The identities allowed to decide: the approvers, plus the requester when `allowRequester`. */
export function decidersOf(record: Pick<ApprovalRecord, 'approvers' | 'requester' | 'allowRequester'>): ChannelIdentity[] {
  return record.allowRequester ? [...record.approvers, record.requester] : [...record.approvers];
}

/**
 * Whether `by` may decide `record`: it matches one of the approvers, or the requester when the
 * record allows the requester. A requester who is also listed as an approver may decide.
 */
export function mayDecide(record: Pick<ApprovalRecord, 'approvers' | 'requester' | 'allowRequester'>, by: ChannelIdentity): boolean {
  return decidersOf(record).some((decider) => sameIdentity(decider, by));
}

/** Who decided, as shown on cards and to the model: the configured person, else the channel address. */
export function decidedByLabel(record: Pick<ApprovalRecord, 'decidedBy'>): string | undefined {
  return record.decidedBy === undefined ? undefined : (record.decidedBy.personId ?? record.decidedBy.address);
}

/** How a person (or a peer) is named in messages: `peer <id>` for another agent, else their `personId`, else `<channel> <address>`. */
export function describeIdentity(identity: ChannelIdentity): string {
  if (identity.agent === true) return `peer ${identity.address.replace(/^peer:/, '')}`;
  return identity.personId ?? `${identity.channel} ${identity.address}`;
}
