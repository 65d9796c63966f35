/**
 * A TCP proxy in front of Redis that plays "Redis went away at exactly this command": every
 * connection is passed through until a client sends a command containing a marker; the commands
 * of that chunk before it are forwarded (a client sends a tick's commands in one write), the rest
 * is not, every connection is cut, and new ones are refused until {@link CuttingProxy.heal}.
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
      // Between the cut and the drop (the forwarded part's write), nothing else gets through.
      if (cut) return;
      const at = marker === undefined ? -1 : chunk.indexOf(marker);
      if (at < 0) {
        upstream.write(chunk);
        return;
      }
      marker = undefined;
      cut = true;
      const before = commandStartBefore(chunk, at);
      if (before > 0) upstream.write(chunk.subarray(0, before), () => { proxy.dropAll(); });
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

/**
 * Where the RESP command holding byte `at` of `chunk` starts (`*<n>` then `$<len>` bulk strings):
 * 0 when it is the first, or when the chunk does not parse as whole commands.
 */
function commandStartBefore(chunk: Buffer, at: number): number {
  let start = 0;
  for (let offset = 0; offset < chunk.length;) {
    const next = commandEnd(chunk, offset);
    if (next === undefined) return 0;
    if (at < next) return start;
    start = next;
    offset = next;
  }
  return 0;
}

/** The end of the RESP command at `offset`, or undefined when it is not one. */
function commandEnd(chunk: Buffer, offset: number): number | undefined {
  const line = (from: number): { value: string; next: number } | undefined => {
    const end = chunk.indexOf('\r\n', from);
    return end < 0 ? undefined : { value: chunk.toString('latin1', from, end), next: end + 2 };
  };
  const header = line(offset);
  if (header === undefined || !header.value.startsWith('*')) return undefined;
  let cursor = header.next;
  for (let index = Number(header.value.slice(1)); index > 0; index -= 1) {
    const size = line(cursor);
    if (size === undefined || !size.value.startsWith('$')) return undefined;
    cursor = size.next + Number(size.value.slice(1)) + 2;
  }
  return cursor <= chunk.length ? cursor : undefined;
}
