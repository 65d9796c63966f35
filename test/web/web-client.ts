/**
 * A browser stand-in for tests: one cookie jar holding `sb_session`, the CSRF token from
 * `GET /api/chat/session`, and helpers that send both the way the chat page does.
 */
import type { SessionAnswer } from '../../channels/web/identity/session-route.ts';

/** Options of one request of {@link WebClient}. */
export interface WebRequestOptions {
  /** The CSRF token to send: the session's by default, `false` for none, or a given value. */
  readonly csrf?: string | false;
  /** An `Origin` header to send (none by default, as Node's fetch sends none). */
  readonly origin?: string;
  /** The content type of a POST. Default `application/json`. */
  readonly contentType?: string;
}

/** A JSON answer. */
export interface JsonAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A test browser; see {@link createWebClient}. */
export interface WebClient {
  readonly baseUrl: string;
  /** The `Cookie` header it sends (`sb_session=…`), `undefined` before a session. */
  cookie: string | undefined;
  /** The last session answer. */
  readonly last: SessionAnswer | undefined;
  /** `GET /api/chat/session`: keeps the cookie and the CSRF token. */
  session(): Promise<SessionAnswer>;
  /** A GET (or HEAD) with the cookie; takes any cookie the answer sets. */
  get(path: string, init?: { readonly method?: 'GET' | 'HEAD'; readonly headers?: Record<string, string> }): Promise<Response>;
  /** A POST of JSON with the cookie and CSRF token (starting a session first when it has none). */
  post(path: string, body: unknown, options?: WebRequestOptions): Promise<JsonAnswer>;
  /** Opens a sign-in link without following its redirect; takes the rotated cookie. */
  open(url: string): Promise<Response>;
}

function takeCookie(client: { cookie: string | undefined }, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const match = /^sb_session=([^;]*)/.exec(line);
    if (match !== null) client.cookie = `sb_session=${match[1] ?? ''}`;
  }
}

/** Creates a test browser for the service at `baseUrl` (no trailing slash). */
export function createWebClient(baseUrl: string): WebClient {
  let last: SessionAnswer | undefined;
  /** The first session request, shared by concurrent first posts (one browser, one session). */
  let starting: Promise<SessionAnswer> | undefined;
  const client: WebClient = {
    baseUrl,
    cookie: undefined,
    get last() {
      return last;
    },
    async session() {
      const response = await client.get('/api/chat/session');
      if (response.status !== 200) throw new Error(`GET /api/chat/session answered ${String(response.status)}`);
      last = (await response.json()) as SessionAnswer;
      return last;
    },
    async get(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers, ...(client.cookie === undefined ? {} : { cookie: client.cookie }) };
      const response = await fetch(`${baseUrl}${path}`, { method: init.method ?? 'GET', headers, redirect: 'manual' });
      takeCookie(client, response);
      return response;
    },
    async post(path, body, options = {}) {
      if (client.cookie === undefined) {
        starting ??= client.session();
        await starting;
      }
      const csrf = options.csrf === undefined ? last?.csrfToken : options.csrf;
      const headers: Record<string, string> = {
        'content-type': options.contentType ?? 'application/json',
        ...(client.cookie === undefined ? {} : { cookie: client.cookie }),
        ...(csrf === false || csrf === undefined ? {} : { 'x-csrf-token': csrf }),
        ...(options.origin === undefined ? {} : { origin: options.origin }),
      };
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      takeCookie(client, response);
      const text = await response.text();
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = { text };
      }
      return { status: response.status, body: parsed };
    },
    async open(url) {
      const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) : new URL(url).pathname;
      return client.get(path);
    },
  };
  return client;
}
