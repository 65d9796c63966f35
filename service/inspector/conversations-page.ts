/**
 * `/admin/conversations`: the recent conversations of every channel, newest first, with the
 * filters of the conversation index and a link to the next page.
 */
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import { count, isoTime, usd } from './entry-fields.ts';
import type { ConversationPage, ConversationSummary } from '../../src/runtime/inspect/conversation-index.ts';
import { CONVERSATION_STATES } from './inspector-sources.ts';
import { timelineHref } from './links.ts';
import { FILTER_FIELDS } from './query-params.ts';

const LABELS: Readonly<Record<(typeof FILTER_FIELDS)[number], string>> = {
  person: 'Person',
  address: 'Address',
  channel: 'Channel',
  actor: 'Actor',
  state: 'State',
  from: 'Active from (UTC)',
  to: 'Active until (UTC)',
};

/** The most characters of a conversation's last text the table shows. */
const LAST_TEXT_CHARS = 120;

function filterForm(filters: Readonly<Record<string, string>>): string {
  const inputs = FILTER_FIELDS.map((name) => {
    const value = filters[name] ?? '';
    if (name === 'state') {
      const options = ['', ...CONVERSATION_STATES].map((state) => `<option value="${escapeHtml(state)}"${state === value ? ' selected' : ''}>${escapeHtml(state === '' ? 'any' : state)}</option>`).join('');
      return `<label>${LABELS[name]}<select name="state">${options}</select></label>`;
    }
    const placeholder = name === 'from' || name === 'to' ? ' placeholder="2025-03-07T10:00"' : '';
    return `<label>${LABELS[name]}<input name="${name}" value="${escapeHtml(value)}" maxlength="200"${placeholder}></label>`;
  }).join('');
  const limit = filters['limit'] === undefined ? '' : `<input type="hidden" name="limit" value="${escapeHtml(filters['limit'])}">`;
  return `<form class="filters" method="get" action="/admin/conversations">${inputs}${limit}<button type="submit">Search</button> <a href="/admin/conversations">Clear</a></form>`;
}

function cell(value: string): string {
  return `<td>${escapeHtml(value)}</td>`;
}

function row(item: ConversationSummary): string {
  const who = [item.personId, item.senderId].filter((value) => value !== undefined && value !== '').join(' / ');
  const last = item.lastText === undefined ? '' : item.lastText.length > LAST_TEXT_CHARS ? `${item.lastText.slice(0, LAST_TEXT_CHARS)}…` : item.lastText;
  return `<tr class="conversation" data-session="${escapeHtml(item.sessionId)}">${[
    `<td><a href="${escapeHtml(timelineHref(item.sessionId))}">${escapeHtml(isoTime(item.lastAt))}</a></td>`,
    cell(item.channel),
    cell(item.address),
    cell(who),
    cell(item.actor),
    `<td class="state-${escapeHtml(item.state)}">${escapeHtml(item.state)}</td>`,
    cell(count(item.turns)),
    cell(count(item.tokens)),
    cell(usd(item.costUsd)),
    cell(last),
  ].join('')}</tr>`;
}

const HEADINGS = ['Last activity', 'Channel', 'Address', 'Person / sender', 'Actor', 'State', 'Turns', 'Tokens', 'Cost', 'Last text'];

/** The link to the next page: the same filters and the index's cursor. */
function nextLink(filters: Readonly<Record<string, string>>, next: string | undefined): string {
  if (next === undefined) return '';
  const params = new URLSearchParams({ ...filters, cursor: next });
  return `<p><a id="next-page" href="/admin/conversations?${escapeHtml(params.toString())}">Older conversations</a></p>`;
}

/** The page's body: the form, then the page of conversations or the error that stopped the search. */
export function renderConversationsBody(filters: Readonly<Record<string, string>>, outcome: { readonly page: ConversationPage } | { readonly error: string }): string {
  const results = 'error' in outcome
    ? `<p class="error" role="alert">${escapeHtml(outcome.error)}</p>`
    : `<table><thead><tr>${HEADINGS.map((heading) => `<th>${heading}</th>`).join('')}</tr></thead><tbody>${
        outcome.page.items.length === 0 ? `<tr><td colspan="${String(HEADINGS.length)}">No conversation matches.</td></tr>` : outcome.page.items.map(row).join('\n')
      }</tbody></table>${nextLink(filters, outcome.page.next)}`;
  return `<h1>Conversations</h1>
${filterForm(filters)}
${results}`;
}
