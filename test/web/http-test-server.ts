/**
 * A real `node:http` server on 127.0.0.1, port 0, dispatching to routes through the project's
 * router: the way the web chat tests talk to the routes.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRouter, type Route } from '../../src/runtime/http/router.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Closes every connection (SSE streams included) and the server. */
  close(): Promise<void>;
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** Sees each request before the router; return `true` when it answered or delayed it itself. */
  readonly intercept?: (req: IncomingMessage, res: ServerResponse, route: () => void) => boolean;
}

/** Starts a server with `routes` on a free loopback port. */
export async function startTestServer(routes: readonly Route[], options: TestServerOptions = {}): Promise<TestServer> {
  const router = createRouter(routes);
  const server = createServer((req, res) => {
    const route = (): void => {
      router(req, res);
    };
    if (options.intercept?.(req, res, route) === true) return;
    route();
  });
  const listening = await listenOnLoopback(server);
  return { url: listening.origin, close: () => listening.close() };
}
