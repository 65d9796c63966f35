/**
 * A request and a response held in memory, for calling a route handler or a webhook reader with
 * thousands of generated requests without a server: the request streams its body once, the
 * response records what was answered.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Route } from '../../src/runtime/http/router.ts';

/** What an in-memory request carries. */
export interface InMemoryRequestOptions {
  readonly body: Buffer | string;
  /** Lower-case names. Default none. */
  readonly headers?: IncomingHttpHeaders;
  /** The request target, as a server would see it. Default `/`. */
  readonly url?: string;
  /** Default `POST`. */
  readonly method?: string;
}

/** An `IncomingMessage` as far as the routes read one: its body (one chunk), headers, URL and method. */
export function inMemoryRequest(options: InMemoryRequestOptions): IncomingMessage {
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  return Object.assign(Readable.from([body]), { headers: options.headers ?? {}, url: options.url ?? '/', method: options.method ?? 'POST' }) as unknown as IncomingMessage;
}

/** What a handler answered. */
export interface RecordedAnswer {
  /** `undefined` when nothing was answered. */
  readonly status: number | undefined;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A `ServerResponse` as far as the routes write one, and what was written to it. */
export function recordingResponse(): { readonly res: ServerResponse; readonly answer: () => RecordedAnswer } {
  let status: number | undefined;
  let ended = false;
  let body = '';
  const headers: Record<string, string> = {};
  const res = {
    get headersSent() {
      return ended;
    },
    set statusCode(value: number) {
      status = value;
    },
    get statusCode() {
      return status ?? 200;
    },
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
      return res;
    },
    writeHead(code: number, fields: Readonly<Record<string, string | number>> = {}) {
      status = code;
      for (const [name, value] of Object.entries(fields)) headers[name.toLowerCase()] = String(value);
      return res;
    },
    end(chunk?: string | Buffer) {
      status ??= 200;
      ended = true;
      if (chunk !== undefined) body += chunk.toString();
      return res;
    },
  };
  return { res: res as unknown as ServerResponse, answer: () => ({ status: ended ? status : undefined, headers, body }) };
}

/**
 * Calls `route`'s handler with an in-memory request; resolves to the answer it wrote, or rejects
 * with what the handler rejected with (which the router would have answered).
 */
export async function callRoute(route: Route, request: InMemoryRequestOptions & { readonly params?: Readonly<Record<string, string>> }): Promise<RecordedAnswer> {
  const req = inMemoryRequest(request);
  const { res, answer } = recordingResponse();
  const target = request.url ?? '/';
  const url = URL.canParse(target, 'http://localhost') ? new URL(target, 'http://localhost') : new URL('http://localhost/');
  await route.handler({ req, res, url, params: request.params ?? {} });
  return answer();
}
