/**
 * The bench's HTTP client: JSON POSTs over kept-alive connections, written and read by hand on
 * `node:net` sockets. The load generator runs on the same cores as the system it measures, so it
 * should cost as little CPU as it can: `fetch` (undici) cost several times more per request than
 * `node:http`, and `node:http`'s client (request objects, the agent's socket pool, its parser)
 * was about a tenth of the bench process's CPU at saturation. The requests are plain HTTP/1.1; the
 * server under test sees nothing it would not see from any other client.
 */
import { connect, type Socket } from 'node:net';
import { readResponse, type ParsedResponse } from './http-response.ts';

/** A POST's status and body. */
export interface Posted {
  readonly status: number;
  readonly body: string;
}

/** Posts JSON to one base URL, with fixed extra headers (a browser's cookie and CSRF token). */
export type JsonPoster = (path: string, body: unknown, headers: Readonly<Record<string, string>>) => Promise<Posted>;

/** One request on a connection: what it resolves, and the bytes of its response so far. */
interface Exchange {
  readonly resolve: (posted: Posted) => void;
  readonly reject: (error: Error) => void;
  received: Buffer;
}

/** A kept-alive connection and the request it carries now, if any. */
interface Connection {
  readonly socket: Socket;
  exchange: Exchange | undefined;
}

/**
 * Creates a poster for `baseUrl` keeping up to `sockets` connections open (default 256); a POST
 * finding them all busy waits for the first one freed.
 */
export function createJsonPoster(baseUrl: string, sockets = 256): { readonly post: JsonPoster; close(): void } {
  const base = new URL(baseUrl);
  const port = Number(base.port === '' ? 80 : base.port);
  const idle: Connection[] = [];
  const open = new Set<Connection>();
  const waiting: { readonly take: (connection: Connection) => void; readonly fail: (error: Error) => void }[] = [];
  let closed = false;

  const release = (connection: Connection): void => {
    const next = waiting.shift();
    if (next !== undefined) next.take(connection);
    else idle.push(connection);
  };
  const drop = (connection: Connection, error: Error): void => {
    const wasOpen = open.delete(connection);
    const index = idle.indexOf(connection);
    if (index >= 0) idle.splice(index, 1);
    connection.socket.destroy();
    const { exchange } = connection;
    connection.exchange = undefined;
    exchange?.reject(error);
    // A request waiting for a connection gets a new one in place of the one lost.
    if (wasOpen && waiting.length > 0 && !closed) release(opened());
  };
  const received = (connection: Connection, chunk: Buffer): void => {
    const { exchange } = connection;
    if (exchange === undefined) {
      drop(connection, new Error('The server sent bytes nobody asked for.'));
      return;
    }
    exchange.received = exchange.received.length === 0 ? chunk : Buffer.concat([exchange.received, chunk]);
    let response: ParsedResponse | undefined;
    try {
      response = readResponse(exchange.received);
    } catch (error) {
      drop(connection, error as Error);
      return;
    }
    if (response === undefined) return;
    connection.exchange = undefined;
    exchange.resolve({ status: response.status, body: response.body });
    if (response.keepAlive && !closed) release(connection);
    else drop(connection, new Error('The connection was closed.'));
  };
  const opened = (): Connection => {
    const socket = connect({ host: base.hostname, port, noDelay: true });
    const connection: Connection = { socket, exchange: undefined };
    open.add(connection);
    socket.on('data', (chunk: Buffer) => { received(connection, chunk); });
    socket.on('error', (error) => { drop(connection, error); });
    socket.on('close', () => { drop(connection, new Error(`The server closed the connection to ${base.host}.`)); });
    return connection;
  };
  const acquire = (): Connection | Promise<Connection> => {
    const connection = idle.pop();
    if (connection !== undefined) return connection;
    if (open.size < sockets) return opened();
    return new Promise((take, fail) => { waiting.push({ take, fail }); });
  };

  const head = `Host: ${base.host}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n`;
  const post: JsonPoster = async (path, body, headers) => {
    if (closed) throw new Error('The poster is closed.');
    const payload = JSON.stringify(body);
    let extra = '';
    for (const [name, value] of Object.entries(headers)) extra += `${name}: ${value}\r\n`;
    const connection = await acquire();
    // Closed, or the connection lost, while this POST waited for it.
    if (!open.has(connection)) throw new Error('The connection was closed before the request was sent.');
    return new Promise<Posted>((resolve, reject) => {
      connection.exchange = { resolve, reject, received: Buffer.alloc(0) };
      connection.socket.write(`POST ${path} HTTP/1.1\r\n${head}Content-Length: ${String(Buffer.byteLength(payload))}\r\n${extra}\r\n${payload}`);
    });
  };
  return {
    post,
    close: () => {
      closed = true;
      for (const connection of [...open]) drop(connection, new Error('The poster was closed.'));
      for (const request of waiting.splice(0)) request.fail(new Error('The poster was closed.'));
    },
  };
}
