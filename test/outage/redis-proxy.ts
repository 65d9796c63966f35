/**
 * A TCP proxy in front of Redis for the outage tests: Redis's answers pass back as they come, and
 * what clients send goes through a hook that decides what reaches Redis. The proxies built on it
 * play "Redis went away at exactly this command" (`cutting-proxy.ts`), "Redis died right after
 * this command" (the settlement test's freezing proxy) or "Redis did this command but its answer
 * was lost" (`answer-losing-proxy.ts`).
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What a proxy is built from. */
export interface RedisProxyHooks {
  /** Whether a new client connection is let through now; refused ones are dropped at once. */
  readonly accepts: () => boolean;
  /** A chunk a client sent; writes to `upstream` what Redis is to get. */
  readonly onClientData: (chunk: Buffer, upstream: Socket) => void;
  /** A chunk Redis answered on `upstream`; writes to `client` what the client is to get. Default: all of it. */
  readonly onServerData?: (chunk: Buffer, client: Socket, upstream: Socket) => void;
}

/** A running proxy. */
export interface RedisProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Drops every connection (clients and their upstreams). */
  dropAll(): void;
  close(): Promise<void>;
}

/** Starts a proxy to the Redis at `target` (`redis://host:port`). */
export async function startRedisProxy(target: string, hooks: RedisProxyHooks): Promise<RedisProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const dropAll = (): void => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  const server = createServer((client) => {
    if (!hooks.accepts()) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: hostname, port: Number(port) });
    sockets.add(client);
    sockets.add(upstream);
    const forget = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => { hooks.onClientData(chunk, upstream); });
    const onServerData = hooks.onServerData ?? ((chunk: Buffer) => { client.write(chunk); });
    upstream.on('data', (chunk: Buffer) => { onServerData(chunk, client, upstream); });
    client.on('close', forget);
    upstream.on('close', forget);
    client.on('error', forget);
    upstream.on('error', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${String(own)}`,
    dropAll,
    close() {
      dropAll();
      return new Promise((resolve) => server.close(() => { resolve(); }));
    },
  };
}

/** End of the RESP line starting at `at` (the index of its `\r`), or -1. */
function lineEnd(chunk: Buffer, at: number): number {
  return chunk.indexOf('\r\n', at, 'latin1');
}

/**
 * The commands of a client chunk (RESP arrays of bulk strings), each as its own buffer; the whole
 * chunk as one when it does not parse (a command split across chunks).
 */
export function respCommands(chunk: Buffer): Buffer[] {
  const commands: Buffer[] = [];
  let at = 0;
  while (at < chunk.length) {
    const start = at;
    let end = lineEnd(chunk, at);
    if (chunk[at] !== 0x2a || end < 0) return [chunk];
    const parts = Number(chunk.toString('latin1', at + 1, end));
    at = end + 2;
    for (let part = 0; part < parts; part += 1) {
      end = lineEnd(chunk, at);
      if (chunk[at] !== 0x24 || end < 0) return [chunk];
      at = end + 2 + Number(chunk.toString('latin1', at + 1, end)) + 2;
    }
    if (at > chunk.length) return [chunk];
    commands.push(chunk.subarray(start, at));
  }
  return commands;
}
