/**
 * The `approval` log entries of the session whose turn asked: when an approval is requested, when
 * a person decides it, and when it expires (or is withdrawn). Data: `approvalId`, `event`, `tool`,
 * and `askedVia` (requested: every channel and address the request was shown on), `decidedBy`,
 * `decision` and `evidence` (decided: who, what, and what the decision rested on).
 */
import type { ApprovalRecord, ChannelIdentity } from '../approvals/approval-types.ts';
import type { EventLogEntry } from '../session/event-log.ts';

/** Where a request was shown. */
export interface AskedVia {
  readonly channel: string;
  readonly address: string;
}

/** The `requested` entry of an approval of `turnId`, shown on `askedVia`. */
export function approvalRequestedEntry(
  request: { readonly approvalId: string; readonly tool: string; readonly turnId: string; readonly actor: string; readonly toolCallId?: string; readonly expiresAt?: string; readonly reason?: string },
  askedVia: readonly AskedVia[],
): EventLogEntry {
  const { approvalId, tool, turnId, actor, toolCallId, expiresAt, reason } = request;
  return {
    type: 'approval',
    turnId,
    actor,
    data: {
      approvalId, event: 'requested', tool, askedVia: askedVia.map(({ channel, address }) => ({ channel, address })),
      ...(toolCallId === undefined ? {} : { toolCallId }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}

function identityOf(identity: ChannelIdentity): Record<string, unknown> {
  return { channel: identity.channel, address: identity.address, ...(identity.personId === undefined ? {} : { personId: identity.personId }) };
}

/**
 * The `decided` entry of a decided approval: `decidedBy` (channel, address, person), `decision`
 * (`granted` or `denied`), `evidence` (whether the channel verified the identity, on what basis,
 * and whether the decision carried the arguments' hash), and the approver's `reason` if any.
 */
export function approvalDecidedEntry(record: ApprovalRecord, argsHashChecked: boolean): EventLogEntry {
  const by = record.decidedBy;
  return {
    type: 'approval',
    turnId: record.turnId,
    actor: record.actor,
    data: {
      approvalId: record.approvalId,
      event: 'decided',
      tool: record.toolName,
      decision: record.status,
      ...(by === undefined ? {} : { decidedBy: identityOf(by), evidence: { verified: by.verified === true, ...(by.basis === undefined ? {} : { basis: by.basis }), argsHashChecked } }),
      ...(record.decidedAt === undefined ? {} : { decidedAt: record.decidedAt }),
      ...(record.reason === undefined ? {} : { reason: record.reason }),
    },
  };
}

/** The `expired` entry of an approval nobody decided in time (or withdrawn when its turn stopped). */
export function approvalExpiredEntry(record: ApprovalRecord): EventLogEntry {
  return {
    type: 'approval',
    turnId: record.turnId,
    actor: record.actor,
    data: { approvalId: record.approvalId, event: 'expired', tool: record.toolName, expiresAt: record.expiresAt },
  };
}
