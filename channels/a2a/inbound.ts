/**
 * The A2A interfaces the Agent Card lists: JSON-RPC at `/a2a/jsonrpc` and HTTP+JSON at
 * `/a2a/rest`, both served by the SDK's own transport handlers over one `DefaultRequestHandler`.
 * Before the SDK sees a request, the route checks the peer's bearer token (401, nothing reached),
 * the peer's rate (429 with Retry-After) and the body's size (413, nothing stored).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { A2A_PROTOCOL_VERSION } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { sendJson, type HttpContext, type Route } from '../../src/runtime/http/router.ts';
import type { PeerTransport } from './normalise.ts';
import { PeerUser, type CallingPeer } from './peer-user.ts';

/** Largest request body a peer may send, in bytes (100 KiB, the SDK's JSON parser's own bound). */
export const MAX_PEER_BODY_BYTES = 100 * 1024;

/** Where the route leaves the checked peer for the SDK's user builder. */
const PEER_USER = Symbol('switchboard.a2a.peer');

/** Who may call: the peer a bearer token belongs to, and whether it may call now. */
export interface PeerGate {
  /** The peer whose token the `Authorization` header carries, compared in constant time. */
  authenticate(authorization: string | undefined): CallingPeer | undefined;
  /** `undefined` when `peerId` may make one more call now, else how long it must wait, in seconds. */
  retryAfterSeconds(peerId: string): Promise<number | undefined>;
}

function userOf(req: Request): Promise<PeerUser> {
  const user: unknown = Reflect.get(req, PEER_USER);
  if (user instanceof PeerUser) return Promise.resolve(user);
  return Promise.reject(new Error('A2A request without a checked peer.'));
}

/** JSON answers for what Express itself refuses (a body over the bound, a body that is not JSON). */
function expressErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) {
    next(error);
    return;
  }
  const status = typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : 500;
  const message = status === 413 ? `The request body is over ${String(MAX_PEER_BODY_BYTES)} bytes.` : 'The request could not be read.';
  res.status(status).json({ error: { code: status === 413 ? 'http.bad_request' : 'internal', message } });
}

/** The Express app of both transports (an ordinary `node:http` request listener). */
function transportsApp(requestHandler: A2ARequestHandler): (req: IncomingMessage, res: ServerResponse) => void {
  const app = express();
  app.disable('x-powered-by');
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: userOf }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: userOf }));
  app.use(expressErrors);
  return app;
}

/**
 * Checks the caller and hands the request to `serve`: 401 (with `WWW-Authenticate: Bearer`)
 * without a valid token, 429 with `Retry-After` past the peer's rate, 413 for a declared body over
 * {@link MAX_PEER_BODY_BYTES}. Resolves when the answer has ended (streams included).
 */
export async function servePeerRequest(
  gate: PeerGate,
  transport: PeerTransport,
  context: HttpContext,
  serve: (req: IncomingMessage, res: ServerResponse, user: PeerUser) => void,
): Promise<void> {
  const { req, res } = context;
  const peer = await admitPeer(gate, context);
  if (peer === undefined) return;
  // A2A 1.0 is all we serve: a request without `A2A-Version` (curl, a script) is read as 1.0, not
  // as the SDK's default 0.3, which it would refuse.
  req.headers['a2a-version'] ??= A2A_PROTOCOL_VERSION;
  const user = new PeerUser(peer, transport);
  await new Promise<void>((resolve) => {
    res.once('close', resolve);
    serve(req, res, user);
  });
}

/**
 * Checks the caller of a peer route before anything is read: 401 (with `WWW-Authenticate: Bearer`)
 * without a valid token, 429 with `Retry-After` past the peer's rate, 413 for a declared body over
 * {@link MAX_PEER_BODY_BYTES} (the same answers as `servePeerRequest`).
 *
 * @returns The peer, or `undefined` when the refusal was sent.
 */
export async function admitPeer(gate: PeerGate, context: HttpContext): Promise<CallingPeer | undefined> {
  const { req, res } = context;
  const refuse = (status: number, code: string, message: string, headers: Record<string, string>): void => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    sendJson(res, status, { error: { code, message } });
  };
  const peer = gate.authenticate(req.headers.authorization);
  if (peer === undefined) {
    refuse(401, 'http.unauthorized', 'A peer bearer token is required (Authorization: Bearer <token>).', { 'www-authenticate': 'Bearer' });
    return undefined;
  }
  const wait = await gate.retryAfterSeconds(peer.id);
  if (wait !== undefined) {
    refuse(429, 'http.too_many_requests', `Too many requests from peer ${peer.id}; try again in ${String(wait)} s.`, { 'retry-after': String(wait) });
    return undefined;
  }
  if (Number(req.headers['content-length'] ?? '0') > MAX_PEER_BODY_BYTES) {
    refuse(413, 'http.bad_request', `The request body is over ${String(MAX_PEER_BODY_BYTES)} bytes.`, { connection: 'close' });
    return undefined;
  }
  return peer;
}

/** Options of {@link createA2aRoutes}. */
export interface A2aRoutesOptions {
  readonly requestHandler: A2ARequestHandler;
  readonly gate: PeerGate;
}

/** The routes of both A2A transports. */
export function createA2aRoutes(options: A2aRoutesOptions): Route[] {
  const app = transportsApp(options.requestHandler);
  const handler = (transport: PeerTransport) => (context: HttpContext) =>
    servePeerRequest(options.gate, transport, context, (req, res, user) => {
      Reflect.set(req, PEER_USER, user);
      app(req, res);
    });
  const rest = handler('rest');
  return [
    { method: 'POST', pattern: '/a2a/jsonrpc', handler: handler('jsonrpc') },
    { method: 'POST', pattern: '/a2a/rest/message:send', handler: rest },
    { method: 'POST', pattern: '/a2a/rest/message:stream', handler: rest },
    { method: 'GET', pattern: '/a2a/rest/tasks', handler: rest },
    // `<id>`, `<id>:subscribe` (GET) and `<id>:cancel`, `<id>:subscribe` (POST).
    { method: 'GET', pattern: '/a2a/rest/tasks/:task', handler: rest },
    { method: 'POST', pattern: '/a2a/rest/tasks/:task', handler: rest },
  ];
}
