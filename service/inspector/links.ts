/**
 * Links into the inspector, for its own pages and for `/admin`'s tables.
 */
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';

/** The timeline's path of a conversation. */
export function timelineHref(sessionId: string): string {
  return `/admin/conversations/${encodeURIComponent(sessionId)}`;
}

/** An `<a>` to a conversation's timeline, its text escaped (default `timeline`). */
export function timelineLink(sessionId: string, text = 'timeline'): string {
  return `<a class="timeline-link" href="${escapeHtml(timelineHref(sessionId))}">${escapeHtml(text)}</a>`;
}

/** The path of a model call's captured request and response. */
export function captureHref(sessionId: string, turnId: string, step: number): string {
  return `${timelineHref(sessionId)}/captures/${encodeURIComponent(turnId)}/${String(step)}`;
}
