/**
 * The timeline as HTML: one row per entry, each turn in its section with its totals, its
 * deliveries and its approvals. Every value is escaped here; the page's script builds the same
 * rows for live entries from the same views, with text nodes (`page/timeline.js`).
 */
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import { renderApprovalDetail } from './approval-html.ts';
import { count, usd } from './entry-fields.ts';
import type { ApprovalDetail, EntryView } from './entry-view.ts';
import type { DeliverySummary, TimelineSection, TurnFacts } from './timeline-groups.ts';
import { safeHref } from './timeline-views.ts';

/** The element id of an entry's row. */
export function entryElementId(id: string): string {
  return `entry-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** One entry's row. */
export function renderEntry(view: EntryView): string {
  const attributes = [
    `class="entry${view.tone === undefined ? '' : ` tone-${view.tone}`}"`,
    `id="${escapeHtml(entryElementId(view.id))}"`,
    `data-id="${escapeHtml(view.id)}"`,
    `data-type="${escapeHtml(view.type)}"`,
    ...(view.turnId === undefined ? [] : [`data-turn="${escapeHtml(view.turnId)}"`]),
    ...(view.providerMessageId === undefined ? [] : [`data-provider-message-id="${escapeHtml(view.providerMessageId)}"`]),
  ];
  const fields = view.fields
    .map((item) => {
      const href = safeHref(item.href);
      const value = href === undefined ? escapeHtml(item.value) : `<a href="${escapeHtml(href)}">${escapeHtml(item.value)}</a>`;
      return `<dt>${escapeHtml(item.label)}</dt><dd>${value}</dd>`;
    })
    .join('');
  const blocks = view.blocks.map((item) => `<div class="block"><div class="block-label">${escapeHtml(item.label)}</div><pre>${escapeHtml(item.text)}</pre></div>`).join('');
  return `<li ${attributes.join(' ')}>
<div class="entry-head"><time datetime="${escapeHtml(view.at)}">${escapeHtml(view.at)}</time><span class="entry-title">${escapeHtml(view.title)}</span>${view.actor === undefined ? '' : `<span class="muted">${escapeHtml(view.actor)}</span>`}</div>
${fields === '' ? '' : `<dl class="fields">${fields}</dl>`}${blocks}<details><summary>Raw entry</summary><pre>${escapeHtml(view.raw)}</pre></details></li>`;
}

function deliveryLine(delivery: DeliverySummary): string {
  const attempts = delivery.attempts.map((attempt) => `attempt ${attempt.attempt === undefined ? '?' : String(attempt.attempt)} ${attempt.outcome}${attempt.providerMessageId === undefined ? '' : ` (${attempt.providerMessageId})`}`);
  const statuses = delivery.statuses.length === 0 ? '' : `; provider: ${delivery.statuses.join(', ')}`;
  return `<li>${escapeHtml(`${delivery.channel} to ${delivery.address}: ${attempts.join(', ')}${statuses}`)}</li>`;
}

function turnSummary(facts: TurnFacts): string {
  const parts = [
    facts.state === undefined ? 'no state yet' : facts.state,
    `${String(facts.modelCalls)} model call${facts.modelCalls === 1 ? '' : 's'}`,
    `${count(facts.inputTokens)} tokens in, ${count(facts.outputTokens)} out`,
    ...(facts.costUsd > 0 ? [usd(facts.costUsd)] : []),
  ];
  const deliveries = facts.deliveries.length === 0 ? '' : `<div class="deliveries"><span class="block-label">Deliveries</span><ul class="summary-list">${facts.deliveries.map(deliveryLine).join('')}</ul></div>`;
  return `<p class="turn-facts muted">${escapeHtml(parts.join(' · '))}</p>${deliveries}`;
}

/** One section: a turn with its facts and approvals, or a run of entries of no turn. */
export function renderSection(section: TimelineSection, approvals: readonly ApprovalDetail[]): string {
  const heading = section.turnId === undefined ? 'Outside any turn' : `Turn ${section.turnId}${section.actor === undefined ? '' : ` · ${section.actor}`}`;
  const turnAttribute = section.turnId === undefined ? '' : ` data-turn="${escapeHtml(section.turnId)}"`;
  const facts = section.facts === undefined ? '' : turnSummary(section.facts);
  const records = approvals.length === 0 ? '' : `<div class="approvals">${approvals.map(renderApprovalDetail).join('\n')}</div>`;
  return `<section class="turn"${turnAttribute} data-section="${escapeHtml(section.key)}">
<h2>${escapeHtml(heading)}</h2>${facts}${records}
<ol class="entries">${section.views.map(renderEntry).join('\n')}</ol>
</section>`;
}
