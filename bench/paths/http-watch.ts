/**
 * Sees the requests a local HTTP server of this process receives (a fake provider API), without
 * touching the server: Node publishes each request on the `http.server.request.start` diagnostics
 * channel as its headers are parsed, and the watcher reads the body beside the server's own reader
 * (a `data` listener gets every chunk the server's reader takes). The arrival time is the moment
 * the headers were parsed.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

/** One request a watched server received. */
export interface SeenRequest {
  readonly method: string;
  /** The request target: path and query. */
  readonly path: string;
  /** The body as UTF-8. */
  readonly body: string;
  /** `performance.now()` when its headers were parsed. */
  readonly at: number;
}

const CHANNEL = 'http.server.request.start';

/**
 * Calls `seen` with each request that reaches a server of this process listening on `port`, once
 * its body was read. Returns what stops watching.
 */
export function watchRequests(port: number, seen: (request: SeenRequest) => void): () => void {
  const listener = (message: unknown): void => {
    const { request } = message as { readonly request: IncomingMessage };
    if (request.socket.localPort !== port) return;
    const at = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      seen({ method: request.method ?? '', path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8'), at });
    });
  };
  subscribe(CHANNEL, listener);
  return () => {
    unsubscribe(CHANNEL, listener);
  };
}

/** The port of an `http://host:port/…` URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}
