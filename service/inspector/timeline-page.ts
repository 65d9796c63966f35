/**
 * The timeline page of one conversation: its summary, then its entries in sections (see
 * `timeline-groups.ts`); with a live stream, the page's script appends what is written next.
 */
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import { renderApprovalDetail } from './approval-html.ts';
import { count, isoTime, usd } from './entry-fields.ts';
import type { ApprovalDetail } from './entry-view.ts';
import type { ConversationSummary } from '../../src/runtime/inspect/conversation-index.ts';
import { timelineHref } from './links.ts';
import { MAX_TIMELINE_ENTRIES, type TimelineData } from './timeline-data.ts';
import { groupTimeline } from './timeline-groups.ts';
import { renderSection } from './timeline-html.ts';
import { entryView } from './timeline-views.ts';

function summaryList(summary: ConversationSummary): string {
  const rows: [string, string | undefined][] = [
    ['Channel', summary.channel],
    ['Address', summary.address],
    ['Sender', summary.senderId],
    ['Person', summary.personId],
    ['Actor', summary.actor],
    ['State', summary.state],
    ['First message', isoTime(summary.firstAt)],
    ['Last activity', isoTime(summary.lastAt)],
    ['Turns', count(summary.turns)],
    ['Tokens', count(summary.tokens)],
    ['Cost', usd(summary.costUsd)],
  ];
  return `<dl class="fields conversation-summary">${rows
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value ?? '')}</dd>`)
    .join('')}</dl>`;
}

/** The page's body for `data`; `live`: the page follows the log (a stream is wired and the log was read whole). */
export function renderTimelineBody(data: TimelineData, options: { readonly live: boolean; readonly captures: boolean }): string {
  const context = { sessionId: data.sessionId, approvals: data.approvals, captures: options.captures };
  const views = data.entries.map((entry) => entryView(entry, context));
  const sections = groupTimeline(data.entries, views);
  const byTurn = new Map<string, ApprovalDetail[]>();
  for (const detail of data.approvals.values()) byTurn.set(detail.record.turnId, [...(byTurn.get(detail.record.turnId) ?? []), detail]);
  const shownTurns = new Set(sections.flatMap((section) => (section.turnId === undefined ? [] : [section.turnId])));
  const loose = [...data.approvals.values()].filter((detail) => !shownTurns.has(detail.record.turnId));
  const live = options.live && !data.truncated;
  const href = timelineHref(data.sessionId);
  const notes = [
    data.summary === undefined ? '<p class="muted">The conversation index has no summary of this conversation (yet); its log is shown below.</p>' : summaryList(data.summary),
    data.truncated ? `<p class="warn">Showing the oldest ${count(MAX_TIMELINE_ENTRIES)} entries of a longer log; live updates are off.</p>` : '',
    `<p><a href="/admin/api/conversations/${escapeHtml(encodeURIComponent(data.sessionId))}">JSON</a> · <span id="live" data-state="${live ? 'connecting' : 'off'}">${live ? 'Connecting to live updates…' : 'Not live.'}</span></p>`,
  ];
  const body = sections.length === 0 ? '<p class="empty muted">No entries in the log.</p>' : sections.map((section) => renderSection(section, section.turnId === undefined ? [] : (byTurn.get(section.turnId) ?? []))).join('\n');
  const looseHtml = loose.length === 0 ? '' : `<section class="turn" data-section="approvals"><h2>Approvals of turns not in this log</h2>${loose.map(renderApprovalDetail).join('\n')}</section>`;
  return `<h1>Conversation <code>${escapeHtml(data.sessionId)}</code></h1>
${notes.join('\n')}
<div id="timeline" data-session="${escapeHtml(data.sessionId)}" data-events="${escapeHtml(`${href}/events`)}" data-after="${escapeHtml(data.after)}" data-live="${live ? 'true' : 'false'}">
${body}
</div>
${looseHtml}`;
}
