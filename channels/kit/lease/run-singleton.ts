/**
 * Keeps one listener running per lease across every process: acquire the lease, start the
 * listener with the fence, and when the lease is lost (or the listener ends by itself) stop the
 * listener, release, and go back to acquiring. This is how the service runs every listener that
 * must exist once per account (an IMAP mailbox, a WhatsApp Web session, a Slack socket).
 */
import type { Logger } from 'pino';
import { reconnectDelayMs, type ReconnectBackoff } from '../../../queues/redis-connections.ts';
import { toSwitchboardError, type ErrorCode, type SwitchboardError } from '../../../src/protocol/errors.ts';
import { pause, systemClock, type LeaseClock } from './lease-clock.ts';
import type { Fence, Lease } from './lease.ts';

/** A started listener, as returned by {@link RunSingletonOptions.start}. */
export interface SingletonListener {
  /** Stops the listener; called when the lease is lost and on {@link Singleton.stop}. */
  stop(): Promise<void>;
  /**
   * Settles when the listener ends by itself (its connection closed for good, it crashed). The
   * runner then stops it, releases the lease and starts over after a backoff. Default: never.
   */
  readonly closed?: Promise<unknown>;
}

/** Options of {@link runSingleton}. */
export interface RunSingletonOptions {
  /** The lease that decides who runs; released by {@link Singleton.stop}, never closed. */
  readonly lease: Lease;
  /** Starts the listener for one acquisition; make every write on its behalf through the fence. */
  readonly start: (fence: Fence) => Promise<SingletonListener>;
  /**
   * Told about failures: the lease lost (`lease.lost`), a start that threw or a listener that ended
   * by itself (`channel.unavailable`, original as `cause`), a stop or release that failed. Default: ignored.
   */
  readonly onError?: (error: SwitchboardError) => void;
  /** Told when the lease is acquired, lost or released. Default: none. */
  readonly logger?: Pick<Logger, 'info' | 'warn'>;
  /** Delay after a failed start or an ended listener, doubling per failure in a row. Default 500 ms up to 20000 ms. */
  readonly retryBackoff?: ReconnectBackoff;
  /** Time source for the backoff. Default {@link systemClock}. */
  readonly clock?: LeaseClock;
}

/** A running singleton; see {@link runSingleton}. */
export interface Singleton {
  /**
   * Stops acquiring, stops the listener (if running) and releases the lease. Never rejects (failures
   * go to `onError`), but waits for the listener's `stop()` and for Redis to answer the release.
   */
  stop(): Promise<void>;
}

type Ending = { readonly kind: 'lost' | 'stopped' } | { readonly kind: 'closed'; readonly error?: unknown };

/** Waits until the fence aborts, the runner stops or the listener ends by itself. */
function ending(fence: AbortSignal, stopping: AbortSignal, closed: Promise<unknown> | undefined): Promise<Ending> {
  return new Promise((resolve) => {
    const done = (result: Ending): void => {
      fence.removeEventListener('abort', onLost);
      stopping.removeEventListener('abort', onStop);
      resolve(result);
    };
    const onLost = (): void => { done({ kind: 'lost' }); };
    const onStop = (): void => { done({ kind: 'stopped' }); };
    if (stopping.aborted || fence.aborted) {
      done({ kind: stopping.aborted ? 'stopped' : 'lost' });
      return;
    }
    fence.addEventListener('abort', onLost, { once: true });
    stopping.addEventListener('abort', onStop, { once: true });
    closed?.then(() => { done({ kind: 'closed' }); }, (error: unknown) => { done({ kind: 'closed', error }); });
  });
}

/**
 * Runs `options.start` whenever this process holds `options.lease`, until {@link Singleton.stop}.
 *
 * @example
 * const singleton = runSingleton({
 *   lease: createLease({ redis, key: `sb:lease:imap:${account}`, ttlMs: 10_000 }),
 *   start: async (fence) => startImapListener({ account, fence }),
 *   onError: (error) => { logger.warn({ err: error }, 'imap listener'); },
 * });
 * // on shutdown:
 * await singleton.stop();
 */
export function runSingleton(options: RunSingletonOptions): Singleton {
  const { lease, logger } = options;
  const clock = options.clock ?? systemClock;
  const report = (error: unknown, code: ErrorCode = 'internal'): void => options.onError?.(toSwitchboardError(error, code));
  const stopping = new AbortController();
  const stopped = (): boolean => stopping.signal.aborted;
  const log = { key: lease.key, ownerId: lease.ownerId };
  let failures = 0;

  /** Reports `error` and waits before the next try, longer after each failure in a row. */
  const backOff = async (error: unknown, code: ErrorCode): Promise<void> => {
    report(error, code);
    failures += 1;
    await pause(clock, reconnectDelayMs(failures, options.retryBackoff), stopping.signal);
  };

  /** Runs one acquisition to its end; returns the failure to back off for, if any. */
  const runHeld = async (fence: Fence): Promise<{ readonly error: unknown } | undefined> => {
    logger?.info({ ...log, token: fence.token }, 'singleton lease acquired');
    let listener: SingletonListener;
    try {
      listener = await options.start(fence);
    } catch (error) {
      await lease.release().catch(report);
      return { error };
    }
    const end = await ending(fence.signal, stopping.signal, listener.closed);
    if (end.kind === 'lost') {
      logger?.warn({ ...log, token: fence.token }, 'singleton lease lost');
      report(fence.signal.reason);
    }
    await listener.stop().catch(report);
    await lease.release().catch(report);
    logger?.info({ ...log, token: fence.token, end: end.kind }, 'singleton listener stopped');
    if (end.kind !== 'closed') {
      failures = 0;
      return undefined;
    }
    return { error: end.error ?? new Error(`Listener of lease ${lease.key} ended by itself`) };
  };

  const loop = async (): Promise<void> => {
    while (!stopped()) {
      let fence: Fence;
      try {
        fence = await lease.acquire(stopping.signal);
      } catch (error) {
        if (!stopped()) await backOff(error, 'internal'); // acquire retries Redis errors itself: unexpected
        continue;
      }
      const failure = await runHeld(fence);
      if (failure !== undefined) await backOff(failure.error, 'channel.unavailable');
    }
  };

  const running = loop().catch(report);
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
