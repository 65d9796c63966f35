/**
 * A `fetch` for provider API clients that take one (`@slack/web-api`'s `fetch` option, the Graph
 * client): an API call (a string body or none, redirects refused) goes over `node:http(s)` with a
 * keep-alive agent, its answer read whole (at most {@link MAX_BODY_BYTES}) into a `Response`
 * served from the bytes read (`read-response.ts`); anything else (a stream or form body, a
 * redirect to follow or to see, a `Request` object, a download) goes to the global `fetch`
 * unchanged.
 *
 * Why: the global `fetch` (undici) costs several times the CPU of a `node:http` request per call,
 * for features a JSON API call does not use (streams, CORS modes, redirect handling). On the Slack
 * path it was a tenth of the process's CPU per message.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ReadResponse } from './read-response.ts';

/** Options of {@link createKeepAliveFetch}. */
export interface KeepAliveFetchOptions {
  /** Open connections per host at most. Default 64. */
  readonly maxSockets?: number;
}

/** A `fetch` with the lean path above, and the agents to close when done. */
export interface KeepAliveFetch {
  readonly fetch: typeof globalThis.fetch;
  /** Closes its connections. */
  readonly close: () => void;
}

/**
 * The request's headers as `node:http` takes them: names in lower case, a name given twice joined
 * with `, ` (as `Headers` does). A plain object, what API clients pass, is read without building
 * a `Headers` on every call.
 */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  const add = (value: string, name: string): void => {
    const lower = name.toLowerCase();
    record[lower] = Object.hasOwn(record, lower) ? `${record[lower] ?? ''}, ${value}` : value;
  };
  if (headers === undefined || headers instanceof Headers || Array.isArray(headers)) new Headers(headers).forEach(add);
  else for (const [name, value] of Object.entries(headers)) if (value !== undefined) add(value, name);
  return record;
}

/** The largest answer the lean path reads, in bytes: an API call's JSON is far smaller. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Whether a request is an API call the lean path serves: a string body or none, redirects refused. */
function isApiCall(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): input is string | URL {
  const body = init?.body;
  return (typeof input === 'string' || input instanceof URL) && (body === undefined || body === null || typeof body === 'string') && init?.redirect === 'error';
}

function toResponse(message: IncomingMessage, body: Buffer, url: URL): Response {
  const status = message.statusCode ?? 0;
  if (status >= 300 && status < 400) throw new TypeError(`fetch failed: ${url.href} redirected, and redirects are refused`);
  const empty = status === 204 || status === 304;
  const answer = { status, statusText: message.statusMessage ?? '', headers: message.headers, body: empty ? null : body, url: url.href };
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a Response in all but its constructor (read-response.ts)
  return new ReadResponse(answer);
}

/** Creates the fetch; see the file's comment. */
export function createKeepAliveFetch(options: KeepAliveFetchOptions = {}): KeepAliveFetch {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64 };
  const http = new HttpAgent(agentOptions);
  const https = new HttpsAgent(agentOptions);
  const lean = (url: URL, init: RequestInit | undefined): Promise<Response> =>
    new Promise((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const settings = { method: init?.method ?? 'GET', headers: headerRecord(init?.headers), agent: secure ? https : http, ...(init?.signal ? { signal: init.signal } : {}) };
      const request = (secure ? httpsRequest : httpRequest)(url, settings, (message) => {
        const chunks: Buffer[] = [];
        let size = 0;
        message.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
          else message.destroy(new Error(`${url.origin} answered more than ${String(MAX_BODY_BYTES)} bytes`));
        });
        message.on('error', reject);
        message.on('close', () => {
          if (!message.complete) reject(new Error(`${url.origin} closed the connection before its answer was complete`));
        });
        message.on('end', () => {
          try {
            resolve(toResponse(message, Buffer.concat(chunks), url));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      request.on('error', reject);
      request.end(typeof init?.body === 'string' ? init.body : undefined);
    });
  return {
    fetch: (input, init) => {
      if (!isApiCall(input, init)) return globalThis.fetch(input, init);
      const url = typeof input === 'string' ? new URL(input) : input;
      return url.protocol === 'http:' || url.protocol === 'https:' ? lean(url, init) : globalThis.fetch(input, init);
    },
    close: () => {
      http.destroy();
      https.destroy();
    },
  };
}
