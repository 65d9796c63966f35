/**
 * `GET /signin/:token`: opening a one-time sign-in link. A valid token signs the browser in as its
 * person (the session is rotated: new sid, the old cookie stops working) and redirects to `/`; a
 * used, expired or unknown one gets a short page saying so. `HEAD` never uses a token up.
 */
import type { Route } from '../../../src/runtime/http/router.ts';
import { sendHtmlPage, serverPagePolicy } from '../../../src/runtime/http/security-headers.ts';
import type { WebIdentity } from './web-identity.ts';

const REFUSED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in link not valid</title></head>
<body><h1>This sign-in link cannot be used</h1>
<p>It was used already, it expired, or it was never issued. Sign-in links work once, for a short time.
Ask for a new one.</p><p><a href="/">Open the chat without signing in</a></p></body></html>
`;

const PAGE_POLICY = serverPagePolicy();

/** A redirect that takes a sign-in token off the address bar: never cached, no referrer sent on. */
const NO_LEAK_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' } as const;

/** Creates the sign-in link route. */
export function createSignInRoute(identity: WebIdentity): Route {
  return {
    method: 'GET',
    pattern: '/signin/:token',
    async handler({ req, res, params }) {
      if (req.method === 'HEAD') {
        sendHtmlPage(res, 200, '', PAGE_POLICY, true);
        return;
      }
      const grant = await identity.redeem(params['token'] ?? '');
      if (grant === undefined) {
        sendHtmlPage(res, 404, REFUSED_PAGE, PAGE_POLICY);
        return;
      }
      const session = await identity.signIn(await identity.current(req), grant);
      identity.setCookie(res, session);
      res.writeHead(303, { ...NO_LEAK_HEADERS, location: '/', 'content-length': 0 });
      res.end();
    },
  };
}
