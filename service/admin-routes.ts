/**
 * The operator's view: `GET /admin` (an HTML page with queue depths, turns in progress, deliveries
 * that failed for good, model spending against the budgets, and pending, decided and expired
 * approvals with their audit trails), `GET /admin/api/approvals?status=`,
 * `GET /admin/api/approvals/:id`, `GET /admin/api/deliveries/failed?channel=&limit=` and
 * `GET /admin/api/budgets` (JSON). With an admin token every request
 * needs `Authorization: Bearer <token>`; without one only loopback clients are served.
 */

import { escapeHtml } from '../channels/kit/render/html-escape.ts';
import type { ProxyRange } from '../src/config/env-types.ts';
import type { FailedDelivery } from '../queues/delivery-failures.ts';
import { summarizeArgs } from '../src/protocol/envelope/approval-surface.ts';
import type { ApprovalAuditEntry, ApprovalRecord, ApprovalStatus, ApprovalStore, ChannelIdentity } from '../src/runtime/approvals/approval-types.ts';
import { authorize } from '../src/runtime/http/operator-access.ts';
import { sendJson, type Route } from '../src/runtime/http/router.ts';
import { sendHtmlPage, serverPagePolicy } from '../src/runtime/http/security-headers.ts';
import { renderBudgets, type BudgetsSnapshot } from './budgets-page.ts';
import { timelineLink } from './inspector/links.ts';

/** What the operator page shows besides approvals: queue depths and sessions with a turn in progress. */
export interface OperationsSnapshot {
  readonly queues: readonly { readonly queue: string; readonly counts: Readonly<Record<string, number>> }[];
  readonly sessions: readonly { readonly sessionId: string; readonly turnId: string; readonly actor: string; readonly status: string; readonly startedAt: string; readonly waitingFor?: string }[];
}

/** Which failed deliveries to show: of one channel, or of all; at most `limit`, newest first. */
export interface FailedDeliveriesQuery {
  readonly channel?: string;
  readonly limit: number;
}

/** Options of {@link createAdminRoutes}. */
export interface AdminRoutesOptions {
  /** Queue and session views; omitted from the page when not given. */
  readonly operations?: () => Promise<OperationsSnapshot>;
  /**
   * Deliveries that failed for good, newest first, e.g. `(query) => deliveryFailures.list(query)`
   * (see `queues/delivery-failures.ts`). Without it the page has no such section and
   * `GET /admin/api/deliveries/failed` answers 404.
   */
  readonly failures?: (query: FailedDeliveriesQuery) => Promise<readonly FailedDelivery[]>;
  readonly approvals: ApprovalStore;
  /**
   * The deployment's model spending against its budgets and today's top spenders (see
   * `budgets-page.ts`). Without it the page has no budgets section and `GET /admin/api/budgets`
   * answers 404.
   */
  readonly budgets?: () => Promise<BudgetsSnapshot>;
  /** More sections of the page, as HTML (escaped by their maker), e.g. the senders' (`sender-admin-routes.ts`). Default none. */
  readonly extraSections?: () => Promise<string>;
  /** Bearer token of the operator pages; `undefined`: loopback clients only. */
  readonly adminToken: string | undefined;
  /** `TRUST_PROXY`: proxies whose `X-Forwarded-For` decides who is a loopback client. Default none. */
  readonly trustProxy?: readonly ProxyRange[];
}

const STATUSES: readonly ApprovalStatus[] = ['pending', 'granted', 'denied', 'expired'];
/** How many approvals, or failed deliveries, the page and the list endpoints show at most. */
const LIST_LIMIT = 100;

/** A person for operators: `personId (channel address)`, `verified` when the channel verified it. */
function operatorLabel(identity: ChannelIdentity | undefined): string {
  if (identity === undefined) return 'system';
  const who = identity.personId === undefined ? `${identity.channel} ${identity.address}` : `${identity.personId} (${identity.channel} ${identity.address})`;
  const label = identity.verified === true ? `${who}, verified` : who;
  return identity.basis === undefined ? label : `${label}, by ${identity.basis}`;
}

function describeAudit(entry: ApprovalAuditEntry): string {
  const detail = entry.detail === undefined ? '' : `: ${entry.detail}`;
  return `${entry.at} ${entry.action} by ${operatorLabel(entry.by)}${detail}`;
}

function cell(text: string): string {
  return `<td>${escapeHtml(text)}</td>`;
}

function renderApproval(record: ApprovalRecord, audit: readonly ApprovalAuditEntry[]): string {
  const decided = record.decidedAt === undefined ? '' : `${operatorLabel(record.decidedBy)} at ${record.decidedAt}`;
  const trail = audit.map((entry) => `<li class="audit-${escapeHtml(entry.action)}">${escapeHtml(describeAudit(entry))}</li>`).join('');
  return [
    `<tr class="status-${escapeHtml(record.status)}" id="approval-${escapeHtml(record.approvalId)}">`,
    `<td>${escapeHtml(record.approvalId)} ${timelineLink(record.sessionId)}</td>`,
    cell(record.shortCode),
    `<td><code>${escapeHtml(record.toolName)}</code></td>`,
    cell(summarizeArgs(record.args)),
    cell(operatorLabel(record.requester)),
    cell(record.approvers.map(operatorLabel).join('; ')),
    `<td><strong>${escapeHtml(record.status)}</strong></td>`,
    cell(decided),
    cell(record.expiresAt),
    `<td><ul class="audit">${trail}</ul></td>`,
    '</tr>',
  ].join('');
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#1d2330}
table{border-collapse:collapse;width:100%;margin-bottom:2rem}th,td{border:1px solid #dfe3ea;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f7f9}.audit{margin:0;padding-left:1rem;font-size:12px}.audit-refused{color:#b3261e}
.status-pending strong{color:#9a6700}.status-granted strong{color:#1f7a4d}.status-denied strong{color:#b3261e}.status-expired strong{color:#667085}`;

const HEADINGS = ['Id', 'Code', 'Tool', 'Arguments', 'Requester', 'Approvers', 'Status', 'Decided', 'Expires', 'Audit trail'];

function renderSection(title: string, rows: readonly string[]): string {
  const body = rows.length === 0 ? `<tr><td colspan="${String(HEADINGS.length)}">None.</td></tr>` : rows.join('\n');
  return `<h2>${escapeHtml(title)} (${String(rows.length)})</h2>
<table><thead><tr>${HEADINGS.map((heading) => `<th>${heading}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

function renderOperations(snapshot: OperationsSnapshot | undefined): string {
  if (snapshot === undefined) return '';
  const states = [...new Set(snapshot.queues.flatMap((queue) => Object.keys(queue.counts)))];
  const queueRows = snapshot.queues
    .map((queue) => `<tr><td>${escapeHtml(queue.queue)}</td>${states.map((state) => cell(String(queue.counts[state] ?? 0))).join('')}</tr>`)
    .join('\n');
  const sessionRows =
    snapshot.sessions.length === 0
      ? '<tr><td colspan="6">None.</td></tr>'
      : snapshot.sessions
          .map((session) => `<tr><td>${escapeHtml(session.sessionId)} ${timelineLink(session.sessionId)}</td>${[session.turnId, session.actor, session.status, session.startedAt, session.waitingFor ?? ''].map(cell).join('')}</tr>`)
          .join('\n');
  return `<h1>Queues</h1>
<table><thead><tr><th>Queue</th>${states.map((state) => `<th>${escapeHtml(state)}</th>`).join('')}</tr></thead><tbody>${queueRows}</tbody></table>
<h1>Sessions with a turn in progress (${String(snapshot.sessions.length)})</h1>
<table><thead><tr><th>Session</th><th>Turn</th><th>Actor</th><th>Status</th><th>Started</th><th>Waiting for</th></tr></thead><tbody>${sessionRows}</tbody></table>`;
}

/** Why a delivery failed for good, in words for an operator. */
export function describeDeliveryFailure(failure: FailedDelivery): string {
  const facts = [failure.status === undefined ? '' : `HTTP ${String(failure.status)}`, failure.providerCode === undefined ? '' : `provider code ${failure.providerCode}`];
  const provider = facts.filter((fact) => fact !== '').join(', ');
  const detail = provider === '' ? failure.message : `${failure.message} (${provider})`;
  switch (failure.reason) {
    case 'permanent':
      return `The provider refused it; not retried: ${detail}`;
    case 'exhausted':
      return `Gave up after ${String(failure.attempts)} failed attempts; the last one: ${detail}`;
    case 'unconfirmed':
      return `Not sent again: an earlier attempt may have reached the provider, but its outcome was never recorded and the provider could not confirm it (${failure.message}). ${failure.trace === undefined ? '' : 'The person is told on their next turn. '}Check with the provider before sending it again.`;
    case 'stalled':
      return `The worker sending it stopped responding too often (${failure.message}); it may or may not have been sent.`;
  }
}

const FAILURE_HEADINGS = ['Failed at', 'Channel', 'Destination', 'Session / turn', 'Attempts', 'Reason', 'Error code', 'Idempotency key'];

function renderFailures(failures: readonly FailedDelivery[] | undefined): string {
  if (failures === undefined) return '';
  const rows = failures.map((failure) =>
    [
      `<tr class="failure-${escapeHtml(failure.reason)}">`,
      cell(failure.failedAt),
      cell(failure.channel),
      cell(failure.destination.address),
      failure.trace === undefined ? '<td></td>' : `<td>${escapeHtml([failure.trace.sessionId, failure.trace.turnId ?? ''].filter((id) => id !== '').join(' / '))} ${timelineLink(failure.trace.sessionId)}</td>`,
      cell(String(failure.attempts)),
      cell(describeDeliveryFailure(failure)),
      `<td><code>${escapeHtml(failure.code)}</code></td>`,
      `<td><code>${escapeHtml(failure.idempotencyKey)}</code></td>`,
      '</tr>',
    ].join(''),
  );
  const body = rows.length === 0 ? `<tr><td colspan="${String(FAILURE_HEADINGS.length)}">None.</td></tr>` : rows.join('\n');
  return `<h1>Failed deliveries (${String(rows.length)})</h1>
<table><thead><tr>${FAILURE_HEADINGS.map((heading) => `<th>${heading}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

async function renderPage(options: AdminRoutesOptions): Promise<string> {
  const { approvals: store, operations, failures } = options;
  const [pending, granted, denied, expired] = await Promise.all(STATUSES.map((status) => store.list({ status, limit: LIST_LIMIT })));
  const decided = [...(granted ?? []), ...(denied ?? [])].sort((a, b) => (b.createdAt < a.createdAt ? -1 : b.createdAt > a.createdAt ? 1 : 0));
  const sections: [string, readonly ApprovalRecord[]][] = [
    ['Pending', pending ?? []],
    ['Decided', decided.slice(0, LIST_LIMIT)],
    ['Expired', expired ?? []],
  ];
  const rendered = await Promise.all(
    sections.map(async ([title, records]) => {
      const rows = await Promise.all(records.map(async (record) => renderApproval(record, await store.audit(record.approvalId))));
      return renderSection(title, rows);
    }),
  );
  // The other sections are read at the same time, not one after another.
  const [operationsNow, failuresNow, budgetsNow, extra] = await Promise.all([
    operations?.(),
    failures?.({ limit: LIST_LIMIT }),
    options.budgets?.(),
    options.extraSections?.() ?? '',
  ]);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>switchboard: operations</title><style>${STYLE}</style></head>
<body><p><a href="/admin/conversations">Conversations</a></p>
${renderOperations(operationsNow)}
${renderFailures(failuresNow)}
${renderBudgets(budgetsNow)}
${extra}
<h1>Approvals</h1>
${rendered.join('\n')}
</body></html>`;
}

const PAGE_POLICY = serverPagePolicy({ inlineStyle: STYLE });

/**
 * Creates the operator routes for approvals:
 * - `GET /admin`: the HTML page, pending / decided / expired, newest first, each with its audit trail;
 * - `GET /admin/api/approvals?status=pending|granted|denied|expired`: `{ approvals: ApprovalRecord[] }`;
 * - `GET /admin/api/approvals/:id`: `{ approval: ApprovalRecord, audit: ApprovalAuditEntry[] }`, 404 when unknown;
 * - `GET /admin/api/deliveries/failed?channel=&limit=`: `{ failures: (FailedDelivery & { description })[] }`,
 *   newest first, at most `limit` (1 to 100, default 100); 404 when `options.failures` is not given;
 * - `GET /admin/api/budgets`: a `BudgetsSnapshot` (the deployment's spending of today and this month
 *   against its limits, today's top senders and conversations); 404 when `options.budgets` is not given.
 *
 * @example
 * const routes = [...createAdminRoutes({ approvals: store, adminToken: env.adminToken }), ...otherRoutes];
 */
export function createAdminRoutes(options: AdminRoutesOptions): Route[] {
  const { approvals } = options;
  return [
    {
      method: 'GET',
      pattern: '/admin',
      async handler({ req, res }) {
        if (!authorize(req, res, options)) return;
        sendHtmlPage(res, 200, await renderPage(options), PAGE_POLICY);
      },
    },
    {
      method: 'GET',
      pattern: '/admin/api/approvals',
      async handler({ req, res, url }) {
        if (!authorize(req, res, options)) return;
        const status = url.searchParams.get('status');
        if (status !== null && !STATUSES.includes(status as ApprovalStatus)) {
          sendJson(res, 400, { error: { code: 'http.bad_request', message: `status must be one of ${STATUSES.join(', ')}.`, details: { field: 'status' } } });
          return;
        }
        const list = await approvals.list(status === null ? { limit: LIST_LIMIT } : { status: status as ApprovalStatus, limit: LIST_LIMIT });
        res.setHeader('cache-control', 'no-store');
        sendJson(res, 200, { approvals: list });
      },
    },
    {
      method: 'GET',
      pattern: '/admin/api/approvals/:id',
      async handler({ req, res, params }) {
        if (!authorize(req, res, options)) return;
        const id = params['id'] ?? '';
        const approval = await approvals.get(id);
        if (approval === undefined) {
          sendJson(res, 404, { error: { code: 'http.not_found', message: `No approval with id ${JSON.stringify(id)}.` } });
          return;
        }
        res.setHeader('cache-control', 'no-store');
        sendJson(res, 200, { approval, audit: await approvals.audit(id) });
      },
    },
    {
      method: 'GET',
      pattern: '/admin/api/deliveries/failed',
      async handler({ req, res, url }) {
        if (!authorize(req, res, options)) return;
        if (options.failures === undefined) {
          sendJson(res, 404, { error: { code: 'http.not_found', message: 'Failed deliveries are not available in this process.' } });
          return;
        }
        const limitText = url.searchParams.get('limit');
        const limit = limitText === null ? LIST_LIMIT : Number(limitText);
        if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT) {
          sendJson(res, 400, { error: { code: 'http.bad_request', message: `limit must be a whole number from 1 to ${String(LIST_LIMIT)}.`, details: { field: 'limit' } } });
          return;
        }
        const channel = url.searchParams.get('channel');
        const failures = await options.failures(channel === null ? { limit } : { channel, limit });
        res.setHeader('cache-control', 'no-store');
        sendJson(res, 200, { failures: failures.map((failure) => ({ ...failure, description: describeDeliveryFailure(failure) })) });
      },
    },
    {
      method: 'GET',
      pattern: '/admin/api/budgets',
      async handler({ req, res }) {
        if (!authorize(req, res, options)) return;
        if (options.budgets === undefined) {
          sendJson(res, 404, { error: { code: 'http.not_found', message: 'Budgets are not available in this process.' } });
          return;
        }
        res.setHeader('cache-control', 'no-store');
        sendJson(res, 200, await options.budgets());
      },
    },
  ];
}
