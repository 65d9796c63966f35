/**
 * A TCP proxy in front of Redis that plays "Redis went away at exactly this command": every
 * connection is passed through until a client sends a command containing a marker; the commands
 * of that chunk before it are forwarded (a client sends a tick's commands in one write), the rest
 * is not, every connection is cut, and new ones are refused until {@link CuttingProxy.heal}.
 * Redis itself keeps running, so what was written before the cut stays written.
 */
import { respCommands, startRedisProxy } from './redis-proxy.ts';

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
      // Between the cut and the drop (the forwarded part's write), nothing else gets through.
      if (cut) return;
      const mark = marker;
      if (mark === undefined || !chunk.includes(mark)) {
        upstream.write(chunk);
        return;
      }
      // The commands before the marker's go on (a chunk that does not parse is one command).
      const commands = respCommands(chunk);
      const before = commands.slice(0, Math.max(0, commands.findIndex((command) => command.includes(mark))));
      marker = undefined;
      cut = true;
      if (before.length > 0) upstream.write(Buffer.concat(before), () => { proxy.dropAll(); });
      else proxy.dropAll();
      onCut?.();
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

