/**
 * A raw TCP client for HTTP tests that need what `fetch` cannot do: send a request a few bytes at a
 * time (a slow client), send a request target `fetch` would refuse, and see exactly when the server
 * closes the connection. (A request from another source address: `send` in `web-service.ts`.)
 */
import { connect, type Socket } from 'node:net';

/** An open connection to the server under test. */
export interface RawConnection {
  readonly socket: Socket;
  /** Resolves once the server closed the connection (or it was reset), with what was received. */
  readonly closed: Promise<string>;
  /** Writes `text`; resolves when it was handed to the kernel. Ignores a connection already gone. */
  write(text: string): Promise<void>;
  /** Writes `text` every `everyMs` until the connection closes; returns what stops it early. */
  trickle(text: string, everyMs: number): () => void;
}

/** Connects to `127.0.0.1:port`. */
export async function openRaw(port: number): Promise<RawConnection> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve).once('error', reject);
  });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  const closed = new Promise<string>((resolve) => {
    socket.once('close', () => {
      resolve(text);
    });
    socket.on('error', () => undefined);
  });
  const write = (chunk: string): Promise<void> =>
    new Promise<void>((resolve) => {
      if (socket.destroyed || !socket.writable) {
        resolve();
        return;
      }
      socket.write(chunk, () => {
        resolve();
      });
    });
  return {
    socket,
    closed,
    write,
    trickle(chunk, everyMs) {
      const timer = setInterval(() => {
        void write(chunk);
      }, everyMs);
      void closed.then(() => {
        clearInterval(timer);
      });
      return () => {
        clearInterval(timer);
      };
    },
  };
}

/** Resolves `promise`, or rejects saying `what` did not happen within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} did not happen within ${String(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON body of a raw HTTP/1.1 answer (after the blank line), parsed. */
export function rawJsonBody(answer: string): unknown {
  const start = answer.indexOf('\r\n\r\n');
  return JSON.parse(start < 0 ? '' : answer.slice(start + 4)) as unknown;
}
