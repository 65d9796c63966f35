/**
 * A test HTTP server on 127.0.0.1 and a free port: listening, and closing with every connection
 * still open (keep-alive clients, SSE streams) cut, so `close()` never waits on a client.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server. */
export interface ListeningServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly origin: string;
  /** Cuts every connection and closes the server; rejects when closing fails. */
  close(): Promise<void>;
}

/** Makes `server` listen on a free loopback port. */
export async function listenOnLoopback(server: Server): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
        server.closeAllConnections();
      }),
  };
}
