/**
 * An approval as the approval store keeps it, for a turn's section of the timeline: who asked,
 * who was asked and where, who decided on which evidence, and the audit trail.
 */
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import type { ApprovalAuditEntry } from '../../src/runtime/approvals/approval-types.ts';
import { approvalAnchor } from './action-views.ts';
import { identity, stringify } from './entry-fields.ts';
import type { ApprovalDetail } from './entry-view.ts';

function row(label: string, value: string | undefined): string {
  return value === undefined || value === '' ? '' : `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;
}

function auditLine(entry: ApprovalAuditEntry): string {
  const by = identity(entry.by) ?? 'the system';
  return `<li class="audit-${escapeHtml(entry.action)}">${escapeHtml(`${entry.at} ${entry.action} by ${by}${entry.detail === undefined ? '' : `: ${entry.detail}`}`)}</li>`;
}

/** The record's block, with the anchor the tool calls and approval entries link to. */
export function renderApprovalDetail({ record, audit }: ApprovalDetail): string {
  const asked = record.approvers.map((approver) => identity(approver) ?? '').filter((who) => who !== '');
  if (record.allowRequester) asked.push('the requester themselves');
  return `<div class="approval-record" id="${escapeHtml(approvalAnchor(record.approvalId))}" data-approval-id="${escapeHtml(record.approvalId)}" data-status="${escapeHtml(record.status)}">
<h3>Approval of <code>${escapeHtml(record.toolName)}</code>: <strong class="status-${escapeHtml(record.status)}">${escapeHtml(record.status)}</strong></h3>
<dl class="fields">${[
    row('Approval', `${record.approvalId} (code ${record.shortCode})`),
    row('Requested by', identity(record.requester)),
    row('Asked', asked.join('; ')),
    row('Request shown in', `${record.replyTo.channel} ${record.replyTo.address}`),
    row('Why a person is asked', record.askedBecause),
    row('Created', record.createdAt),
    row('Expires', record.expiresAt),
    row('Decided by', identity(record.decidedBy)),
    row('Decided at', record.decidedAt),
    row('Reason', record.reason),
  ].join('')}</dl>
<div class="block"><div class="block-label">Arguments</div><pre>${escapeHtml(stringify(record.args))}</pre></div>
<ul class="summary-list audit">${audit.map(auditLine).join('')}</ul>
</div>`;
}
