/**
 * The headers every HTML page of the service carries, and the Content-Security-Policy of the
 * server-rendered pages (operator pages, the WhatsApp link page, the sign-in answer): no script at
 * all, their one inline `<style>` allowed by its hash, never framed, no referrer sent on.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Headers for an HTML answer under `policy` (a `Content-Security-Policy` value). */
export function htmlSecurityHeaders(policy: string): Readonly<Record<string, string>> {
  return {
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

/**
 * Sends a server-rendered page: `html` under `policy` with {@link htmlSecurityHeaders}, never cached
 * (`no-store`: these pages show operator or sign-in state); with `head`, the headers only.
 */
export function sendHtmlPage(res: ServerResponse, status: number, html: string, policy: string, head = false): void {
  res.writeHead(status, {
    ...htmlSecurityHeaders(policy),
    'cache-control': 'no-store',
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  });
  res.end(head ? undefined : html);
}

/** The CSP source for an inline `<style>` element whose text is exactly `css`. */
function styleHashSource(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

/** Options of {@link serverPagePolicy}. */
export interface ServerPagePolicyOptions {
  /** The text of the page's one inline `<style>` element, allowed by hash. Default: no style. */
  readonly inlineStyle?: string;
  /** `img-src` sources, e.g. `['data:']` for an inline QR code. Default none. */
  readonly imgSrc?: readonly string[];
}

/**
 * A Content-Security-Policy for a page rendered on the server: nothing may load or run (no script,
 * no inline script or event handler), except the page's own inline style (by SHA-256 hash) and the
 * image sources given; no frame may embed it, no form may post from it.
 *
 * @example
 * const css = 'body{margin:0}';
 * res.writeHead(200, { ...htmlSecurityHeaders(serverPagePolicy({ inlineStyle: css })), 'content-type': 'text/html; charset=utf-8' });
 * res.end(`<style>${css}</style>...`);
 */
export function serverPagePolicy(options: ServerPagePolicyOptions = {}): string {
  return [
    "default-src 'none'",
    ...(options.inlineStyle === undefined ? [] : [`style-src ${styleHashSource(options.inlineStyle)}`]),
    ...(options.imgSrc === undefined || options.imgSrc.length === 0 ? [] : [`img-src ${options.imgSrc.join(' ')}`]),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
