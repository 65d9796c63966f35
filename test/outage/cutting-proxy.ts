/**
 * A TCP proxy in front of Redis that plays "Redis went away at exactly this command": every
 * connection is passed through until a client sends bytes containing a marker; that chunk is not
 * forwarded, every connection is cut, and new ones are refused until {@link CuttingProxy.heal}.
 * Redis itself keeps running, so what was written before the cut stays written.
 */
import { startRedisProxy } from './redis-proxy.ts';

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
  let marker: string | undefined;
  let onCut: (() => void) | undefined;
  let cut = false;
  const proxy = await startRedisProxy(target, {
    accepts: () => !cut,
    onClientData(chunk, upstream) {
      if (marker !== undefined && chunk.includes(marker)) {
        marker = undefined;
        cut = true;
        proxy.dropAll();
        onCut?.();
        return;
      }
      upstream.write(chunk);
    },
  });
  return {
    url: proxy.url,
    cutAt(text) {
      marker = text;
      return new Promise((resolve) => {
        onCut = resolve;
      });
    },
    heal() {
      cut = false;
    },
    close: () => proxy.close(),
  };
}
