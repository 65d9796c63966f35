/**
 * Many listeners on one Redis subscriber connection: the first listener of a channel subscribes
 * it, the last one to leave unsubscribes it. SUBSCRIBE and UNSUBSCRIBE of one channel run one
 * after the other, so a quick leave-and-join never ends up unsubscribed.
 *
 * When Redis goes away the connection reconnects by itself and subscribes its channels again;
 * whatever was published meanwhile is lost to it, so each listener's `onResume` is called once the
 * channels are subscribed again, for it to read what it missed.
 */

import type { Redis } from 'ioredis';
import { untilRedisReady } from '../../../src/runtime/redis/redis-ready.ts';

/** Options of {@link createWebSubscriptions}. */
export interface WebSubscriptionsOptions<T> {
  /** Gives the subscriber connection, called once on the first subscription. */
  readonly connect: () => { readonly connection: Redis; readonly owned: boolean };
  /** Turns a published message into a value for the listeners; `undefined` drops it. */
  readonly decode: (message: string) => T | undefined;
  /** Called when a listener throws. Default: ignore. */
  readonly onListenerError?: (error: unknown) => void;
  /**
   * How long a subscription waits for the connection to be ready, in milliseconds; then it fails
   * with `redis.unavailable`. Default 2000.
   */
  readonly readyTimeoutMs?: number;
}

/** A set of channel subscriptions sharing one connection. */
export interface WebSubscriptions<T> {
  /**
   * Adds a listener; resolves once the channel is subscribed, with the function that removes it.
   * `onResume` is called each time the connection came back after a loss and subscribed again.
   */
  add(channel: string, listener: (value: T) => void, onResume?: () => void): Promise<() => Promise<void>>;
  /** Removes every listener and closes the connection if it is owned. */
  close(): Promise<void>;
}

interface ChannelState<T> {
  readonly listeners: Set<(value: T) => void>;
  subscribed: boolean;
  queue: Promise<void>;
}

/** Creates a subscription multiplexer over one lazily obtained subscriber connection. */
export function createWebSubscriptions<T>(options: WebSubscriptionsOptions<T>): WebSubscriptions<T> {
  const channels = new Map<string, ChannelState<T>>();
  let connection: Redis | undefined;
  let owned = false;
  let closed = false;
  let everReady = false;
  const resumers = new Set<() => void>();
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;

  const resumeAll = (): void => {
    for (const resume of [...resumers]) {
      try {
        resume();
      } catch (error) {
        options.onListenerError?.(error);
      }
    }
  };

  /** After a reconnect: once the channels are subscribed again (a PING answers after them), resume. */
  const onReady = (): void => {
    if (!everReady) {
      everReady = true;
      return;
    }
    setImmediate(() => {
      connection?.ping().then(resumeAll, resumeAll);
    });
  };

  const onMessage = (channel: string, message: string): void => {
    const state = channels.get(channel);
    if (state === undefined || state.listeners.size === 0) return;
    const value = options.decode(message);
    if (value === undefined) return;
    for (const listener of [...state.listeners]) {
      try {
        listener(value);
      } catch (error) {
        options.onListenerError?.(error);
      }
    }
  };

  const connectionFor = (): Redis => {
    if (connection === undefined) {
      const made = options.connect();
      connection = made.connection;
      owned = made.owned;
      connection.on('message', onMessage);
      connection.on('ready', onReady);
      everReady = connection.status === 'ready';
    }
    return connection;
  };

  const reconcile = (channel: string, state: ChannelState<T>): Promise<void> => {
    const run = async (): Promise<void> => {
      if (closed) return;
      // Only a SUBSCRIBE or UNSUBSCRIBE waits for the connection (bounded: it has no offline queue);
      // a channel that needs neither, e.g. the last listener of a subscription that failed, is
      // dropped at once.
      if ((state.listeners.size > 0) !== state.subscribed) {
        const redis = connectionFor();
        await untilRedisReady(redis, readyTimeoutMs);
        if (state.listeners.size > 0 && !state.subscribed) {
          await redis.subscribe(channel);
          state.subscribed = true;
        } else if (state.listeners.size === 0 && state.subscribed) {
          state.subscribed = false;
          await redis.unsubscribe(channel);
        }
      }
      if (state.listeners.size === 0 && !state.subscribed && channels.get(channel) === state) channels.delete(channel);
    };
    const next = state.queue.then(run);
    state.queue = next.catch(() => undefined);
    return next;
  };

  return {
    async add(channel, listener, onResume) {
      if (closed) throw new Error('The web event subscriptions are closed.');
      let state = channels.get(channel);
      if (state === undefined) {
        state = { listeners: new Set(), subscribed: false, queue: Promise.resolve() };
        channels.set(channel, state);
      }
      const own = state;
      // A wrapper, so that the same function added twice is two subscriptions.
      const entry = (value: T): void => {
        listener(value);
      };
      own.listeners.add(entry);
      const resume = (): void => {
        onResume?.();
      };
      resumers.add(resume);
      const remove = async (): Promise<void> => {
        resumers.delete(resume);
        if (!own.listeners.delete(entry)) return;
        await reconcile(channel, own).catch(() => undefined);
      };
      try {
        await reconcile(channel, own);
      } catch (error) {
        await remove();
        throw error;
      }
      return remove;
    },

    async close() {
      if (closed) return;
      closed = true;
      const subscribed = [...channels].filter(([, state]) => state.subscribed).map(([channel]) => channel);
      channels.clear();
      resumers.clear();
      const redis = connection;
      if (redis === undefined) return;
      redis.off('message', onMessage);
      redis.off('ready', onReady);
      if (owned) {
        await redis.quit().catch(() => {
          redis.disconnect();
        });
      } else if (subscribed.length > 0) {
        await redis.unsubscribe(...subscribed).catch(() => undefined);
      }
    },
  };
}
