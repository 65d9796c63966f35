/**
 * `GET /admin/whatsapp`: the operator's view of the WhatsApp Web session, from any web process:
 * the link state in words, the QR code to scan while one is shown (a PNG data URL, no script),
 * the alert when the session dropped or was refused, and the last changes. Guarded like the other
 * operator pages; refreshes itself every few seconds until the session is ready.
 */
import { toDataURL } from 'qrcode';
import type { ProxyRange } from '../../../src/config/env-types.ts';
import { authorize } from '../../../src/runtime/http/operator-access.ts';
import type { Route } from '../../../src/runtime/http/router.ts';
import { sendHtmlPage, serverPagePolicy } from '../../../src/runtime/http/security-headers.ts';
import { escapeHtml } from '../../kit/render/html-escape.ts';
import type { LinkState, LinkStateStore, LinkStatus } from './link-state.ts';

/** Options of {@link createWhatsAppAdminRoutes}. */
export interface WhatsAppAdminOptions {
  readonly linkState: Pick<LinkStateStore, 'read' | 'history'>;
  /** `ADMIN_TOKEN`; `undefined`: loopback clients only. */
  readonly adminToken: string | undefined;
  /** `TRUST_PROXY`: proxies whose `X-Forwarded-For` decides who is a loopback client. Default none. */
  readonly trustProxy?: readonly ProxyRange[];
  /** Seconds between refreshes while the session is not ready. Default 5. */
  readonly refreshSeconds?: number;
}

const WORDS: Readonly<Record<LinkStatus, string>> = {
  starting: 'Starting: the browser is opening WhatsApp Web.',
  'waiting-for-qr': 'Waiting for the QR code to be scanned.',
  authenticated: 'Linked; WhatsApp Web is loading the chats.',
  ready: 'Ready: messages are received and sent.',
  disconnected: 'Disconnected; the session is being restarted.',
  'logged-out': 'Logged out from the phone; a new QR code follows.',
  'auth-failed': 'The kept session was refused; a new QR code follows.',
};

const HISTORY_SHOWN = 10;

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#1d2330;max-width:48rem}
.alert{border:1px solid #b3261e;background:#fdecea;color:#7a1c16;padding:.6rem .8rem;margin:1rem 0}
.qr img{width:264px;height:264px;image-rendering:pixelated;border:1px solid #dfe3ea}
ol{padding-left:1.2rem}li{margin:.2rem 0}.muted{color:#667085}`;

const PAGE_POLICY = serverPagePolicy({ inlineStyle: STYLE, imgSrc: ['data:'] });

async function qrSection(state: LinkState): Promise<string> {
  if (state.status !== 'waiting-for-qr' || state.qr === undefined) return '';
  const image = await toDataURL(state.qr, { type: 'image/png', margin: 2, width: 264 });
  return `<section class="qr"><h2>Link the phone</h2>
<p><img src="${escapeHtml(image)}" alt="QR code to link WhatsApp Web"></p>
<ol><li>Open WhatsApp on the phone whose number the bot should use.</li>
<li>Go to <strong>Settings › Linked devices › Link a device</strong> (on iPhone: WhatsApp › Settings › Linked Devices).</li>
<li>Point the camera at this code. The code changes every few seconds; this page follows.</li></ol></section>`;
}

function historySection(history: readonly LinkState[]): string {
  const items = history.slice(0, HISTORY_SHOWN).map((state) => {
    const detail = state.detail === undefined ? '' : `: ${state.detail}`;
    return `<li>${escapeHtml(`${state.since} ${state.status}${detail}`)} <span class="muted">(holder ${String(state.token)})</span></li>`;
  });
  return items.length === 0 ? '' : `<h2>Recent changes</h2><ul>${items.join('')}</ul>`;
}

/** The page for `state` (`undefined`: no session has started yet). */
async function renderWhatsAppPage(state: LinkState | undefined, history: readonly LinkState[], refreshSeconds = 5): Promise<string> {
  const refresh = state?.status === 'ready' ? '' : `<meta http-equiv="refresh" content="${String(refreshSeconds)}">`;
  const summary =
    state === undefined
      ? '<p>No WhatsApp Web session has started yet: it starts in a worker process once <code>WHATSAPP_MODE=web</code> is set.</p>'
      : `<p class="status status-${escapeHtml(state.status)}"><strong>${escapeHtml(WORDS[state.status])}</strong> <span class="muted">Since ${escapeHtml(state.since)}.</span></p>
${state.number === undefined ? '' : `<p>Number: <strong>${escapeHtml(state.number)}</strong></p>`}
${state.detail === undefined ? '' : `<p>Detail: ${escapeHtml(state.detail)}</p>`}`;
  const alert = state?.alert === undefined ? '' : `<p class="alert" role="alert">${escapeHtml(state.alert)}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${refresh}<title>switchboard: WhatsApp Web</title><style>${STYLE}</style></head>
<body><h1>WhatsApp Web</h1>
${alert}${summary}
${state === undefined ? '' : await qrSection(state)}
${historySection(history)}
</body></html>`;
}

/**
 * Creates `GET /admin/whatsapp` (HTML; `Authorization: Bearer <ADMIN_TOKEN>`, or loopback only
 * when no token is set).
 */
export function createWhatsAppAdminRoutes(options: WhatsAppAdminOptions): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/admin/whatsapp',
      async handler({ req, res }) {
        if (!authorize(req, res, { adminToken: options.adminToken, ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }) })) return;
        const [state, history] = await Promise.all([options.linkState.read(), options.linkState.history(HISTORY_SHOWN)]);
        const html = await renderWhatsAppPage(state, history, options.refreshSeconds);
        sendHtmlPage(res, 200, html, PAGE_POLICY);
      },
    },
  ];
}
