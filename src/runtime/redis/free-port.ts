import { createServer } from 'node:net';

/**
 * Asks the OS for a TCP port that is free right now on `host`, by listening on port 0 and closing
 * again. Another process may take the port before the caller binds it: callers retry on
 * `EADDRINUSE`.
 *
 * @param host - Interface to probe. Default `127.0.0.1`.
 */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => {
        if (port === undefined) reject(new Error(`could not read the port bound on ${host}`));
        else resolve(port);
      });
    });
  });
}
