/**
 * A TCP proxy in front of Redis that plays "Redis went away at exactly this command": every
 * connection is passed through until a client sends bytes containing a marker; that chunk is not
 * forwarded, every connection is cut, and new ones are refused until {@link CuttingProxy.heal}.
 * Redis itself keeps running, so what was written before the cut stays written.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface CuttingProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Cuts everything at the first client chunk containing `marker`; resolves when that happened. */
  cutAt(marker: string): Promise<void>;
  /** Lets connections through again. */
  heal(): void;
  close(): Promise<void>;
}

/** Starts a proxy to the Redis at `target` (`redis://host:port`). */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let marker: string | undefined;
  let onCut: (() => void) | undefined;
  let cut = false;

  const cutAll = (): void => {
    cut = true;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    onCut?.();
  };

  const server = createServer((client) => {
    if (cut) {
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
    client.on('data', (chunk: Buffer) => {
      if (marker !== undefined && chunk.includes(marker)) {
        marker = undefined;
        cutAll();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', forget);
    upstream.on('close', forget);
    client.on('error', forget);
    upstream.on('error', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${String(own)}`,
    cutAt(text) {
      marker = text;
      return new Promise((resolve) => {
        onCut = resolve;
      });
    },
    heal() {
      cut = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => { resolve(); }));
    },
  };
}
