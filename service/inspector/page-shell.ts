/**
 * The frame of the inspector pages: one inline style allowed by its hash, the timeline's script
 * from this origin only (no inline script, no event handler), the filter form posting to this
 * origin by GET, never framed.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import { sendHtmlPage } from '../../src/runtime/http/security-headers.ts';

/** The script the timeline page loads (served by `static-route.ts`). */
export const TIMELINE_SCRIPT_PATH = '/admin/inspector/timeline.js';

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#1d2330}a{color:#1a56b3}
nav{margin-bottom:1rem}nav a{margin-right:1rem}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}th,td{border:1px solid #dfe3ea;padding:.35rem .5rem;text-align:left;vertical-align:top}th{background:#f6f7f9}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin-bottom:1rem}form.filters label{display:flex;flex-direction:column;font-size:12px;color:#4a5468}
.muted{color:#667085}.error{color:#b3261e}.warn{color:#9a6700}.ok{color:#1f7a4d}
.state-failed{color:#b3261e}.state-suspended{color:#9a6700}.state-in-progress{color:#1a56b3}
.turn{border:1px solid #dfe3ea;border-radius:6px;margin:0 0 1rem;padding:.5rem .75rem}.turn>h2{font-size:15px;margin:.25rem 0 .5rem}
ol.entries{list-style:none;margin:0;padding:0}.entry{border-top:1px solid #eef0f4;padding:.4rem 0}
.entry-head{display:flex;gap:.75rem;align-items:baseline}.entry-head time{font:12px ui-monospace,monospace;color:#667085}.entry-title{font-weight:600}
.tone-error .entry-title{color:#b3261e}.tone-warn .entry-title{color:#9a6700}.tone-ok .entry-title{color:#1f7a4d}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:.3rem 0 0 1rem;font-size:13px}dl.fields dt{color:#4a5468}dl.fields dd{margin:0;overflow-wrap:anywhere}
.block{margin:.3rem 0 0 1rem}.block-label{font-size:12px;color:#4a5468}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f7f9;padding:.4rem .5rem;margin:.15rem 0;font:12px ui-monospace,monospace}
details{margin:.3rem 0 0 1rem}summary{cursor:pointer;font-size:12px;color:#4a5468}
.summary-list{margin:.25rem 0 .5rem;padding-left:1.25rem;font-size:13px}#live{font-size:12px}`;

function styleSource(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

/** The Content-Security-Policy of an inspector page; `live`: it loads the timeline script and opens its event stream. */
export function inspectorPagePolicy(live: boolean): string {
  return [
    "default-src 'none'",
    `style-src ${styleSource(STYLE)}`,
    ...(live ? ["script-src 'self'", "connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Options of {@link sendInspectorPage}. */
export interface InspectorPage {
  readonly title: string;
  /** The body's HTML, escaped by its maker. */
  readonly body: string;
  /** Loads the timeline script. Default `false`. */
  readonly live?: boolean;
  /** Default 200. */
  readonly status?: number;
}

/** Sends an inspector page with the navigation, the style and the headers of the operator pages. */
export function sendInspectorPage(res: ServerResponse, page: InspectorPage, head = false): void {
  const script = page.live === true ? `<script type="module" src="${TIMELINE_SCRIPT_PATH}"></script>` : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.title)} · switchboard</title><style>${STYLE}</style>${script}</head>
<body><nav><a href="/admin">Operations</a><a href="/admin/conversations">Conversations</a></nav>
${page.body}
</body></html>`;
  sendHtmlPage(res, page.status ?? 200, html, inspectorPagePolicy(page.live === true), head);
}
