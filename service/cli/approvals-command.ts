/**
 * `switchboard approvals list [--status pending|granted|denied|expired]` and
 * `switchboard approvals show <id>`: the operator's look at approvals from a terminal.
 */

import { summarizeArgs } from '../../src/protocol/envelope/approval-surface.ts';
import type { ApprovalAuditEntry, ApprovalRecord, ApprovalStatus, ApprovalStore, ChannelIdentity } from '../../src/runtime/approvals/approval-types.ts';

/** Where the command writes (stdout in the CLI). */
export interface CommandOutput {
  write(text: string): unknown;
}

/** The usage text of the `approvals` command. */
export const APPROVALS_USAGE = `usage:
  switchboard approvals list [--status pending|granted|denied|expired]   approvals, newest first
  switchboard approvals show <id>                                        one approval and its audit trail`;

const STATUSES: readonly string[] = ['pending', 'granted', 'denied', 'expired'];

/** `sms:+447700900123`; an address that already names its channel (the web's `web:b_...`) is shown as it is. */
function channelAddress(who: ChannelIdentity): string {
  return who.address.startsWith(`${who.channel}:`) ? who.address : `${who.channel}:${who.address}`;
}

function identity(who: ChannelIdentity | undefined): string {
  if (who === undefined) return 'system';
  const address = channelAddress(who);
  const base = who.personId === undefined ? address : `${who.personId} (${address})`;
  const checked = who.verified === true ? `${base}, verified` : base;
  return who.basis === undefined ? checked : `${checked}, by ${who.basis}`;
}

/** Lays rows out in columns separated by two spaces. */
function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((value, index) => (widths[index] = Math.max(widths[index] ?? 0, value.length)));
  return rows.map((row) => row.map((value, index) => value.padEnd(widths[index] ?? 0)).join('  ').trimEnd()).join('\n');
}

function listRow(record: ApprovalRecord): string[] {
  const when = record.status === 'pending' || record.decidedAt === undefined ? `expires ${record.expiresAt}` : `decided ${record.decidedAt}`;
  return [record.approvalId, record.shortCode, record.toolName, record.status, identity(record.requester), when];
}

function auditLine(entry: ApprovalAuditEntry): string {
  return `  ${entry.at}  ${entry.action.padEnd(9)}  ${identity(entry.by)}${entry.detail === undefined ? '' : `: ${entry.detail}`}`;
}

function describe(record: ApprovalRecord, audit: readonly ApprovalAuditEntry[]): string {
  const fields: [string, string][] = [
    ['id', record.approvalId],
    ['code', record.shortCode],
    ['status', record.status],
    ['tool', record.toolName],
    ['tool call', record.toolCallId],
    ['arguments', summarizeArgs(record.args)],
    ['actor', record.actor],
    ['session', record.sessionId],
    ['turn', record.turnId],
    ['requester', identity(record.requester)],
    ['approvers', record.approvers.map(identity).join('; ') || '(none)'],
    ['requester may decide', record.allowRequester ? 'yes' : 'no'],
    ['created', record.createdAt],
    ['expires', record.expiresAt],
  ];
  if (record.decidedAt !== undefined) fields.push(['decided', `${identity(record.decidedBy)} at ${record.decidedAt}`]);
  if (record.reason !== undefined) fields.push(['reason', record.reason]);
  const width = Math.max(...fields.map(([name]) => name.length));
  const lines = fields.map(([name, value]) => `${`${name}:`.padEnd(width + 1)} ${value}`);
  lines.push('', 'audit trail:', ...(audit.length === 0 ? ['  (empty)'] : audit.map(auditLine)));
  return lines.join('\n');
}

async function list(args: readonly string[], approvals: ApprovalStore, out: CommandOutput): Promise<number> {
  let status: ApprovalStatus | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    const value = arg === '--status' ? args[++index] : arg.startsWith('--status=') ? arg.slice('--status='.length) : null;
    if (value === null || value === undefined || !STATUSES.includes(value)) {
      out.write(`${value === null ? `Unknown argument "${arg}".` : '--status needs one of pending, granted, denied, expired.'}\n${APPROVALS_USAGE}\n`);
      return 2;
    }
    status = value as ApprovalStatus;
  }
  const records = await approvals.list(status === undefined ? {} : { status });
  if (records.length === 0) {
    out.write(status === undefined ? 'No approvals.\n' : `No ${status} approvals.\n`);
    return 0;
  }
  out.write(`${table([['ID', 'CODE', 'TOOL', 'STATUS', 'REQUESTER', 'EXPIRES / DECIDED'], ...records.map(listRow)])}\n`);
  return 0;
}

/**
 * Runs `switchboard approvals <list|show> ...` (`args` are the words after `approvals`) and
 * resolves to the exit code: 0 done, 1 unknown approval id, 2 bad usage (the usage is written).
 */
export async function runApprovalsCommand(args: string[], approvals: ApprovalStore, out: CommandOutput): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'list') return list(rest, approvals, out);
  if (subcommand === 'show' && rest.length === 1 && rest[0] !== undefined && !rest[0].startsWith('-')) {
    const id = rest[0];
    const record = await approvals.get(id);
    if (record === undefined) {
      out.write(`No approval with id "${id}". List them with: switchboard approvals list\n`);
      return 1;
    }
    out.write(`${describe(record, await approvals.audit(id))}\n`);
    return 0;
  }
  out.write(`${APPROVALS_USAGE}\n`);
  return 2;
}
