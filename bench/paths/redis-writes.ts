/**
 * Redis round trips of the service in this process, counted as the socket writes of its Redis
 * connections: each write (`_write`, or `_writev` for several commands at once) sends what the
 * client has to send and is followed by waiting for the replies, so one write is one round trip.
 * Sockets are caught as they are made (Node's `net.client.socket` diagnostics channel) and counted
 * once they are connected to Redis's port; connections opened before the watch started (the
 * bench's own) are not seen. The same counting as test/support/socket-writes.ts, for every
 * connection of the process rather than one client's.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

type CountedSocket = Socket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };

/** Counts the socket writes to Redis made from now on. */
export interface RedisWrites {
  /** Writes so far, every connection to Redis together. */
  count(): number;
  /** How many connections to Redis were caught. */
  connections(): number;
  stop(): void;
}

const CHANNEL = 'net.client.socket';

/** Watches the TCP connections this process opens from now on to `port` on the loopback. */
export function watchRedisWrites(port: number): RedisWrites {
  let writes = 0;
  const toRedis = new WeakSet<Socket>();
  let connections = 0;
  const counts = (socket: Socket): boolean => {
    if (toRedis.has(socket)) return true;
    if (socket.remotePort !== port) return false;
    toRedis.add(socket);
    connections += 1;
    return true;
  };
  const listener = (message: unknown): void => {
    const socket = (message as { readonly socket: CountedSocket }).socket;
    const single = socket._write.bind(socket);
    const vectored = socket._writev.bind(socket);
    socket._write = (...args: unknown[]) => {
      if (counts(socket)) writes += 1;
      single(...args);
    };
    socket._writev = (...args: unknown[]) => {
      if (counts(socket)) writes += 1;
      vectored(...args);
    };
  };
  subscribe(CHANNEL, listener);
  return {
    count: () => writes,
    connections: () => connections,
    stop: () => {
      unsubscribe(CHANNEL, listener);
    },
  };
}
