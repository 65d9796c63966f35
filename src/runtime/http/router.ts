import type { IncomingMessage, ServerResponse } from 'node:http';
import { SwitchboardError, toSwitchboardError } from '../../protocol/errors.ts';
import { isRedisUnavailable, redisUnavailable } from '../redis/redis-unavailable.ts';

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
  'http.request_timeout': 408,
  'http.unsupported_media_type': 415,
  'http.too_many_streams': 429,
  'http.too_many_requests': 429,
  'config.invalid': 503,
  'redis.unavailable': 503,
};

/**
 * A handler's failure as a coded error: one that says Redis could not be reached becomes
 * `redis.unavailable` (503 with `Retry-After`), whichever store or queue it came from.
 */
export function asRequestError(thrown: unknown): SwitchboardError {
  return isRedisUnavailable(thrown) ? redisUnavailable(thrown) : toSwitchboardError(thrown);
}

/** Sends the JSON error answer of a handler's failure (or ends an answer already under way). */
function answerError(req: IncomingMessage, res: ServerResponse, error: SwitchboardError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const retryAfter = error.details['retryAfterSeconds'];
  if (typeof retryAfter === 'number') res.setHeader('retry-after', String(Math.ceil(retryAfter)));
  // A body left unread (refused before or while reading it) is not drained: the connection closes.
  if (!req.complete) res.setHeader('connection', 'close');
  sendJson(res, STATUS_BY_CODE[error.code] ?? 500, { error: error.toJSON() });
}

/**
 * A request listener for `node:http` that dispatches to the first matching route. Unknown paths
 * get 404, a known path with another method 405, and a handler's error a JSON error answer with
 * its stable code (500 for anything not marked as the client's fault; 503 `redis.unavailable`
 * when Redis could not be reached), `Retry-After` when the error's `details.retryAfterSeconds` is
 * a number. Every answer carries `X-Content-Type-Options: nosniff`.
 */
export function createRouter(
  routes: readonly Route[],
  onError: HttpErrorListener = () => undefined,
): (req: IncomingMessage, res: ServerResponse) => void {
  const compiled = routes.map(compile);
  return (req, res) => {
    res.setHeader('x-content-type-options', 'nosniff');
    const url = requestUrl(req);
    if (url === undefined) {
      answerError(req, res, new SwitchboardError('http.bad_request', 'The request target is not a valid path'));
      return;
    }
    let pathMatched = false;
    for (const { route, regex, names } of compiled) {
      const match = regex.exec(url.pathname);
      if (match === null) continue;
      pathMatched = true;
      if (route.method !== req.method && !(route.method === 'GET' && req.method === 'HEAD')) continue;
      const params = pathParams(names, match);
      if (params === undefined) {
        answerError(req, res, new SwitchboardError('http.bad_request', 'A path segment is not valid percent-encoding', { details: { path: url.pathname } }));
        return;
      }
      const context: HttpContext = { req, res, url, params };
      route.handler(context).catch((thrown: unknown) => {
        const error = asRequestError(thrown);
        answerError(req, res, error);
        onError(error, context);
      });
      return;
    }
    if (pathMatched) sendJson(res, 405, { error: { code: 'http.bad_request', message: `${req.method ?? ''} not allowed here` } });
    else sendJson(res, 404, { error: { code: 'http.not_found', message: `Nothing at ${url.pathname}` } });
  };
}

/** The request's URL, or `undefined` when its target cannot be read as one (e.g. `http://[::1/x`). */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/** The route's named path segments, decoded; `undefined` when one is not valid percent-encoding (`%zz`). */
function pathParams(names: readonly string[], match: RegExpExecArray): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(match[index + 1] ?? '');
    });
  } catch {
    return undefined;
  }
  return params;
}

/** Sends a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

// The body readers live in request-body.ts; kept importable from here for the routes that use them.
export { readBody, readJsonObject } from './request-body.ts';
