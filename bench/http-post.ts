/**
 * The bench's HTTP client: JSON POSTs over kept-alive `node:http` connections. The load generator
 * runs on the same cores as the system it measures, so it should cost as little CPU as it can;
 * `fetch` (undici) cost several times more per request than this.
 */
import { Agent, request } from 'node:http';

/** A POST's status and body. */
export interface Posted {
  readonly status: number;
  readonly body: string;
}

/** Posts JSON to one base URL, with fixed extra headers (a browser's cookie and CSRF token). */
export type JsonPoster = (path: string, body: unknown, headers: Readonly<Record<string, string>>) => Promise<Posted>;

/** Creates a poster for `baseUrl` keeping up to `sockets` connections alive (default 256). */
export function createJsonPoster(baseUrl: string, sockets = 256): { readonly post: JsonPoster; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const base = new URL(baseUrl);
  const post: JsonPoster = (path, body, headers) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const outgoing = request(
        { agent, host: base.hostname, port: base.port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  return { post, close: () => { agent.destroy(); } };
}
