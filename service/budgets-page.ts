/**
 * The budgets section of the operator page: the deployment's tokens and model calls of today and
 * this month against its limits, and the senders and conversations that spent the most today.
 */
import { escapeHtml } from '../channels/kit/render/html-escape.ts';

/** One period of the deployment's spending and its limits (absent: none). */
export interface PeriodSpending {
  /** `2025-03-07` for the day, `2025-03` for the month (UTC). */
  readonly period: string;
  /** ISO 8601 time the counters start again. */
  readonly resetsAt: string;
  readonly tokens: number;
  readonly calls: number;
  readonly tokenLimit?: number;
  readonly callLimit?: number;
  /** Estimated cost of the period's model calls, in USD (days only; see `model-prices.ts`). */
  readonly costUsd?: number;
}

/** A sender or conversation of today's biggest spenders. */
export interface SpenderRow {
  /** `person:<id>` or `<channel>:<sender id>` for a sender, the session id for a conversation. */
  readonly id: string;
  readonly tokens: number;
  readonly calls: number;
  /** Estimated cost of today's model calls, in whole micro-dollars, when any was counted. */
  readonly costMicros?: number;
}

/** What the budgets section shows; also the answer of `GET /admin/api/budgets`. */
export interface BudgetsSnapshot {
  readonly deployment: { readonly day: PeriodSpending; readonly month: PeriodSpending };
  readonly topSenders: readonly SpenderRow[];
  readonly topConversations: readonly SpenderRow[];
}

function cell(text: string): string {
  return `<td>${escapeHtml(text)}</td>`;
}

/** `1,234 of 200,000 (0.6%)`, or `1,234 (no limit)`. */
function againstLimit(used: number, limit: number | undefined): string {
  const count = used.toLocaleString('en-US');
  if (limit === undefined) return `${count} (no limit)`;
  const share = limit === 0 ? 100 : (used / limit) * 100;
  return `${count} of ${limit.toLocaleString('en-US')} (${share.toFixed(1)}%)`;
}

/** `$0.0123` (an estimate), or `–` when nothing was counted. */
function dollars(usd: number | undefined): string {
  return usd === undefined ? '–' : `$${usd.toFixed(4)}`;
}

function periodRow(name: string, spending: PeriodSpending): string {
  return `<tr>${[`${name} (${spending.period})`, againstLimit(spending.tokens, spending.tokenLimit), againstLimit(spending.calls, spending.callLimit), dollars(spending.costUsd), spending.resetsAt].map(cell).join('')}</tr>`;
}

function spenderTable(title: string, rows: readonly SpenderRow[]): string {
  const body = rows.length === 0
    ? '<tr><td colspan="4">None.</td></tr>'
    : rows.map((row) => `<tr>${[row.id, row.tokens.toLocaleString('en-US'), row.calls.toLocaleString('en-US'), dollars(row.costMicros === undefined ? undefined : row.costMicros / 1_000_000)].map(cell).join('')}</tr>`).join('\n');
  return `<h2>${escapeHtml(title)}</h2>
<table><thead><tr><th>Id</th><th>Tokens</th><th>Model calls</th><th>Cost (est.)</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The section's HTML; `''` without a snapshot. */
export function renderBudgets(snapshot: BudgetsSnapshot | undefined): string {
  if (snapshot === undefined) return '';
  const { day, month } = snapshot.deployment;
  return `<h1 id="budgets">Budgets</h1>
<table><thead><tr><th>Deployment</th><th>Tokens</th><th>Model calls</th><th>Cost (est.)</th><th>Resets at</th></tr></thead><tbody>
${periodRow('Today', day)}
${periodRow('This month', month)}
</tbody></table>
${spenderTable('Top senders today', snapshot.topSenders)}
${spenderTable('Top conversations today', snapshot.topConversations)}`;
}
