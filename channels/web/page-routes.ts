/**
 * The web chat page: `GET /` serves `page/index.html`, `GET /static/:file` the page's scripts and
 * styles from the same folder, `GET /static/a2ui.js` the A2UI renderer bundled at start-up. Only
 * plain file names with a known extension are served, so no request can reach outside the folder.
 */

import { readFile } from 'node:fs/promises';
import { buildA2uiBundle, type A2uiBundle } from './a2ui-bundle.ts';
import type { Route } from '../../src/runtime/http/router.ts';
import { htmlSecurityHeaders } from '../../src/runtime/http/security-headers.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';

const PAGE_DIR = new URL('./page/', import.meta.url);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** A file name without any path: lower-case letters, digits and dashes, then a known extension. */
const STATIC_FILE = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;

/** The page loads only its own files: no inline script, style or event handler runs, nothing frames it. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

async function serveFile(res: Parameters<Route['handler']>[0]['res'], name: string): Promise<void> {
  const match = STATIC_FILE.exec(name);
  const extension = match?.[1];
  const contentType = extension === undefined ? undefined : CONTENT_TYPES[extension];
  if (contentType === undefined) throw new SwitchboardError('http.not_found', `No page file named ${JSON.stringify(name)}.`);
  let body: Buffer;
  try {
    body = await readFile(new URL(name, PAGE_DIR));
  } catch (error) {
    throw new SwitchboardError('http.not_found', `No page file named ${JSON.stringify(name)}.`, { cause: error });
  }
  res.writeHead(200, {
    'content-type': contentType,
    'content-length': body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(extension === 'html' ? htmlSecurityHeaders(CONTENT_SECURITY_POLICY) : {}),
  });
  res.end(body);
}

/** One bundle per process, begun when the first page routes are made (the web role's start). */
let bundle: Promise<A2uiBundle> | undefined;

function serveBundle(res: Parameters<Route['handler']>[0]['res'], built: A2uiBundle): void {
  const body = built.ok ? built.code : `// The A2UI renderer could not be bundled: ${built.reason.replaceAll('\n', ' ')}\n`;
  res.writeHead(built.ok ? 200 : 503, {
    'content-type': CONTENT_TYPES['js'] ?? 'text/javascript',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
}

/**
 * The routes serving the web chat page and its static files. Starts bundling the A2UI renderer
 * (once per process); `/static/a2ui.js` answers when it is done, 503 when it failed (the page then
 * shows surfaces in its generic view).
 */
export function createWebPageRoutes(): Route[] {
  bundle ??= buildA2uiBundle();
  const built = bundle;
  return [
    { method: 'GET', pattern: '/', handler: ({ res }) => serveFile(res, 'index.html') },
    { method: 'GET', pattern: '/static/a2ui.js', handler: async ({ res }) => { serveBundle(res, await built); } },
    { method: 'GET', pattern: '/static/:file', handler: ({ res, params }) => serveFile(res, params['file'] ?? '') },
  ];
}
