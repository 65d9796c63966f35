/**
 * The page of one captured model call: the full request and response as the capture store kept
 * them, as escaped, indented JSON.
 */
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import { stringify } from './entry-fields.ts';
import type { CapturedCall } from '../../src/runtime/inspect/capture-store.ts';
import { timelineHref } from './links.ts';

/** The body of the capture page. */
export function renderCaptureBody(sessionId: string, turnId: string, step: number, captured: CapturedCall): string {
  return `<h1>Model call: turn <code>${escapeHtml(turnId)}</code>, step ${String(step)}</h1>
<p><a href="${escapeHtml(timelineHref(sessionId))}">Back to the conversation</a></p>
<h2>Request</h2>
<pre class="capture-request">${escapeHtml(stringify(captured.request))}</pre>
<h2>Response</h2>
${captured.error === undefined ? '' : `<p class="error">The call failed: ${escapeHtml(captured.error)}</p>`}
<pre class="capture-response">${escapeHtml(stringify(captured.response))}</pre>`;
}
