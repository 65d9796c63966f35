/**
 * What the fake HTTP APIs (fake Slack, fake Twilio) share: a server on a free loopback port whose
 * handler's crash becomes the fake's own 500 answer, and each request read in full.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback, type ListeningServer } from './loopback-server.ts';

/** A request, read in full. */
export interface FakeRequest {
  readonly method: string;
  /** The request target as sent: path and query. */
  readonly path: string;
  readonly pathname: string;
  readonly query: URLSearchParams;
  /** Lower-case names; a repeated header's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8. */
  readonly raw: string;
}

/** Reads `req` in full. */
export async function readFakeRequest(req: IncomingMessage): Promise<FakeRequest> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const path = req.url ?? '/';
  const url = new URL(path, 'http://fake.invalid');
  return { method: req.method ?? '', path, pathname: url.pathname, query: url.searchParams, headers, raw: Buffer.concat(parts).toString('utf8') };
}

/**
 * Starts a server on a free loopback port that hands each request to `handle`. When `handle`
 * rejects, `crashed` answers (a fake's own 500), or the connection is cut once headers went out.
 */
export async function startFakeServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  crashed: (res: ServerResponse, message: string) => void,
): Promise<{ readonly server: Server; readonly listening: ListeningServer }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else crashed(res, error instanceof Error ? error.message : String(error));
    });
  });
  return { server, listening: await listenOnLoopback(server) };
}
