import type { IncomingMessage, ServerResponse } from 'node:http';
import { SwitchboardError, toSwitchboardError } from '../../protocol/errors.ts';

/** What a route handler receives. */
export interface HttpContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The parsed request URL (host from the request; use PUBLIC_URL for signatures, never this). */
  readonly url: URL;
  /** Path parameters by name, URI-decoded. */
  readonly params: Readonly<Record<string, string>>;
}

/** A route handler. It must answer the request (or hand it to a long-lived stream). */
export type HttpHandler = (context: HttpContext) => Promise<void>;

/** One route: a method and a path pattern with `:name` segments. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'HEAD' | 'DELETE';
  /** E.g. `/api/chat/:conversationId/messages`. */
  readonly pattern: string;
  readonly handler: HttpHandler;
}

/** Called with every error a handler throws, after the error answer was sent. */
export type HttpErrorListener = (error: SwitchboardError, context: HttpContext) => void;

interface CompiledRoute {
  readonly route: Route;
  readonly regex: RegExp;
  readonly names: readonly string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { route, regex: new RegExp(`^${source}/?$`), names };
}

const STATUS_BY_CODE: Partial<Record<SwitchboardError['code'], number>> = {
  'http.bad_request': 400,
  'http.unauthorized': 401,
  'http.forbidden': 403,
  'http.not_found': 404,
  'config.invalid': 503,
};

/**
 * A request listener for `node:http` that dispatches to the first matching route. Unknown paths
 * get 404, a known path with another method 405, and a handler's error a JSON error answer with
 * its stable code (500 for anything not marked as the client's fault).
 */
export function createRouter(
  routes: readonly Route[],
  onError: HttpErrorListener = () => undefined,
): (req: IncomingMessage, res: ServerResponse) => void {
  const compiled = routes.map(compile);
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let pathMatched = false;
    for (const { route, regex, names } of compiled) {
      const match = regex.exec(url.pathname);
      if (match === null) continue;
      pathMatched = true;
      if (route.method !== req.method && !(route.method === 'GET' && req.method === 'HEAD')) continue;
      const params: Record<string, string> = {};
      names.forEach((name, index) => {
        params[name] = decodeURIComponent(match[index + 1] ?? '');
      });
      const context: HttpContext = { req, res, url, params };
      route.handler(context).catch((thrown: unknown) => {
        const error = toSwitchboardError(thrown);
        if (!res.headersSent) sendJson(res, STATUS_BY_CODE[error.code] ?? 500, { error: error.toJSON() });
        else res.end();
        onError(error, context);
      });
      return;
    }
    if (pathMatched) sendJson(res, 405, { error: { code: 'http.bad_request', message: `${req.method ?? ''} not allowed here` } });
    else sendJson(res, 404, { error: { code: 'http.not_found', message: `Nothing at ${url.pathname}` } });
  };
}

/** Sends a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/**
 * Reads a request body as a Buffer, refusing bodies over `maxBytes` (default 1 MiB) with
 * `http.bad_request`.
 */
export async function readBody(req: IncomingMessage, maxBytes = 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw new SwitchboardError('http.bad_request', `Request body over ${maxBytes} bytes.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads and parses a JSON object body; a malformed or non-object body is `http.bad_request`. */
export async function readJsonObject(req: IncomingMessage, maxBytes?: number): Promise<Record<string, unknown>> {
  const raw = (await readBody(req, maxBytes)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new SwitchboardError('http.bad_request', 'The body is not valid JSON.', { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SwitchboardError('http.bad_request', 'The body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
