/**
 * A TCP proxy in front of Redis that plays "Redis ran the command, then the connection broke
 * before its answer arrived": the chosen command reaches Redis, and when Redis answers on that
 * connection the answer is thrown away and the connection cut. Other connections, and new ones,
 * pass as usual, so a client that resends what went unanswered (ioredis does by default) sends
 * the same command a second time.
 */
import type { Socket } from 'node:net';
import { startRedisProxy } from './redis-proxy.ts';

/** A running proxy. */
export interface AnswerLosingProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /**
   * Loses what Redis sends next on the connection of the first client chunk that `matches` (read
   * as latin1): the answer to that chunk's commands, on a client with nothing else in flight (an
   * earlier command's answer otherwise); resolves once the connection was cut.
   */
  loseAnswerTo(matches: (chunk: string) => boolean): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to the Redis at `target` (`redis://host:port`). */
export async function startAnswerLosingProxy(target: string): Promise<AnswerLosingProxy> {
  let trigger: { matches: (chunk: string) => boolean; cut: () => void } | undefined;
  /** Upstream connections whose next answer is lost, with what to call once it was. */
  const losing = new Map<Socket, () => void>();
  const proxy = await startRedisProxy(target, {
    accepts: () => true,
    onClientData(chunk, upstream) {
      if (trigger?.matches(chunk.toString('latin1')) === true) {
        losing.set(upstream, trigger.cut);
        trigger = undefined;
      }
      upstream.write(chunk);
    },
    onServerData(chunk, client, upstream) {
      const cut = losing.get(upstream);
      if (cut === undefined) {
        client.write(chunk);
        return;
      }
      losing.delete(upstream);
      upstream.destroy();
      client.destroy();
      cut();
    },
  });
  return {
    url: proxy.url,
    loseAnswerTo(matches) {
      return new Promise((resolve) => {
        trigger = { matches, cut: resolve };
      });
    },
    close: () => proxy.close(),
  };
}
