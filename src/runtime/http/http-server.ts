/**
 * The service's `node:http` server with bounds on slow clients: headers that trickle in
 * (slowloris), a request (headers and body) that takes too long, idle kept-alive connections.
 * A client cut off, or sending something unparsable, gets a coded JSON error like any other refusal
 * when nothing of an answer was written yet, and its connection is closed.
 *
 * The bounds apply to receiving the request only: an answer that streams for hours (the web chat's
 * Server-Sent Events) is not cut by them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SwitchboardError } from '../../protocol/errors.ts';

/** Default of {@link HttpServerLimits.headersTimeoutMs}: 10 s to send the request's headers. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** Default of {@link HttpServerLimits.requestTimeoutMs}: 30 s to send the whole request, body included. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Default of {@link HttpServerLimits.keepAliveTimeoutMs}: a kept-alive connection with no new request
 * is closed after 5 s (Node's own default). A proxy that keeps upstream connections alive must close
 * them sooner (nginx: `keepalive_timeout` below 5 s in the `upstream` block).
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Default of {@link HttpServerLimits.checkIntervalMs}: how often Node looks for connections past
 * their header or request deadline, 1 s; a slow client is cut at most this long after its deadline.
 */
export const DEFAULT_TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Bounds on slow clients; every field in milliseconds. */
export interface HttpServerLimits {
  /** Time to receive a request's headers. Default {@link DEFAULT_HEADERS_TIMEOUT_MS}. */
  readonly headersTimeoutMs?: number;
  /** Time to receive a whole request; at least `headersTimeoutMs`. Default {@link DEFAULT_REQUEST_TIMEOUT_MS}. */
  readonly requestTimeoutMs?: number;
  /** Idle time of a kept-alive connection between requests. Default {@link DEFAULT_KEEP_ALIVE_TIMEOUT_MS}. */
  readonly keepAliveTimeoutMs?: number;
  /** Interval of the deadline checks. Default {@link DEFAULT_TIMEOUT_CHECK_INTERVAL_MS}. */
  readonly checkIntervalMs?: number;
}

/** Status and code of what Node reports on a connection it could not read a request from. */
function refusalOf(error: Error & { code?: string }): { status: number; reason: string; error: SwitchboardError } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, reason: 'Request Timeout', error: new SwitchboardError('http.request_timeout', 'The request was not received in time; the connection is closed.') };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', error: new SwitchboardError('http.bad_request', 'The request headers are too large.') };
  }
  return { status: 400, reason: 'Bad Request', error: new SwitchboardError('http.bad_request', 'The request could not be parsed as HTTP/1.1.') };
}

/** A whole HTTP/1.1 answer carrying `error` as the router's JSON error shape, closing the connection. */
function rawErrorAnswer(status: number, reason: string, error: SwitchboardError): string {
  const body = JSON.stringify({ error: error.toJSON() });
  return [
    `HTTP/1.1 ${String(status)} ${reason}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${String(Buffer.byteLength(body))}`,
    'x-content-type-options: nosniff',
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Creates an HTTP server for `listener` with the bounds of `limits` (defaults above).
 *
 * @example
 * const server = createHttpServer(createRouter(routes), { headersTimeoutMs: 5_000 });
 * server.listen(3000);
 */
export function createHttpServer(listener: (req: IncomingMessage, res: ServerResponse) => void, limits: HttpServerLimits = {}): Server {
  const headersTimeout = limits.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(limits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout),
      keepAliveTimeout: limits.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: limits.checkIntervalMs ?? DEFAULT_TIMEOUT_CHECK_INTERVAL_MS,
    },
    listener,
  );
  /** The answer in progress on each connection: an error answer must not be written into it. */
  const answering = new WeakMap<Socket, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, res);
    res.once('finish', () => {
      if (answering.get(req.socket) === res) answering.delete(req.socket);
    });
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    const started = answering.get(socket)?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(error);
    socket.end(rawErrorAnswer(refusal.status, refusal.reason, refusal.error), () => {
      socket.destroy();
    });
  });
  return server;
}
