/** Counts what a Redis client's socket really writes, for tests of write coalescing. */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';

/** Socket writes seen so far: `single` for `_write` (one chunk), `vectored` for `_writev` (several at once). */
export interface SocketWrites {
  single: number;
  vectored: number;
}

type CountedSocket = Socket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };

/**
 * Starts counting the writes of `client`'s current socket into `counts` (a fresh record when none
 * is given) and returns it. A client without a socket yet adds nothing.
 */
export function countSocketWrites(client: Redis, counts: SocketWrites = { single: 0, vectored: 0 }): SocketWrites {
  const stream = (client as unknown as { stream?: CountedSocket }).stream;
  if (stream === undefined) return counts;
  const single = stream._write.bind(stream);
  const vectored = stream._writev.bind(stream);
  stream._write = (...args: unknown[]) => {
    counts.single += 1;
    single(...args);
  };
  stream._writev = (...args: unknown[]) => {
    counts.vectored += 1;
    vectored(...args);
  };
  return counts;
}
