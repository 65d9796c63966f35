import type { ApprovalConfig, Person } from '../app/app-types.ts';
import { ROLE_APPROVER_PREFIX } from '../app/app-types.ts';
import type { ChannelIdentity } from '../approvals/approval-types.ts';

/** Who may decide a tool's approvals, resolved to channel identities, and for how long it waits. */
export interface ApproverPlan {
  readonly approvers: readonly ChannelIdentity[];
  readonly allowRequester: boolean;
  /** How long an approval waits, in ms. */
  readonly ttlMs: number;
}

/** Default wait of an approval: 24 hours. */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The approvers of `tool` from the app's `approvals` and `people`: person ids and `role:<name>`
 * entries become every address those people have on every channel, plus the person themselves. A tool without an entry has no
 * approvers: its requests can only expire (fail closed).
 */
export function approverPlan(tool: string, approvals: readonly ApprovalConfig[], people: readonly Person[]): ApproverPlan {
  const entry = approvals.find((approval) => approval.tool === tool);
  if (entry === undefined) return { approvers: [], allowRequester: false, ttlMs: DEFAULT_APPROVAL_TTL_MS };
  const chosen = people.filter((person) =>
    entry.approvers.some((approver) =>
      approver.startsWith(ROLE_APPROVER_PREFIX) ? person.roles.includes(approver.slice(ROLE_APPROVER_PREFIX.length)) : approver === person.id,
    ),
  );
  // Each person also as themselves (`person:<id>`), so a person with no address on a channel (a
  // web approver who signs in with a link) still matches by person id once a channel verified them.
  const approvers = chosen.flatMap((person) => [
    { channel: 'person', address: person.id, personId: person.id },
    ...Object.entries(person.addresses).flatMap(([channel, addresses]) => addresses.map((address) => ({ channel, address, personId: person.id }))),
  ]);
  return { approvers, allowRequester: entry.allowRequester, ttlMs: entry.expiresInMinutes * 60_000 };
}
