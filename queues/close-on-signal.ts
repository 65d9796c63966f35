/**
 * Graceful shutdown: on SIGTERM (or another signal), close the queue objects one after another,
 * so workers finish the jobs they are running (BullMQ's `worker.close()`) before the process ends.
 */

/** Anything with an async `close()`, like every factory result in `queues/`. */
export interface Closable {
  close(): Promise<void>;
}

/** Where signals come from: `process`, or an `EventEmitter` in tests. */
export interface SignalSource {
  once(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

/** Options of {@link closeOnSignal}. */
export interface CloseOnSignalOptions {
  /**
   * What to close, in this order. Put producers that face the outside first (after the HTTP
   * server stopped accepting), then the workers, e.g. `[inboundQueue, inboundWorker, turnWorker,
   * outbound]`. A failing `close()` does not stop the others.
   */
  readonly targets: readonly Closable[];
  /** Usually `process`. */
  readonly source: SignalSource;
  /** Signals that start the shutdown. Default `['SIGTERM', 'SIGINT']`. */
  readonly signals?: readonly NodeJS.Signals[];
  /**
   * Called once everything is closed, with the first error any `close()` raised. Typically sets
   * `process.exitCode`. Default: nothing.
   */
  readonly onClosed?: (error: Error | undefined, signal: NodeJS.Signals) => void;
}

/** A registered shutdown; see {@link closeOnSignal}. */
export interface SignalShutdown {
  /** Resolves when the shutdown started by a signal has finished; `undefined` before any signal. */
  readonly closed: Promise<void> | undefined;
  /** Removes the signal listeners without closing anything. */
  dispose(): void;
}

/**
 * Closes `targets` in order when one of `signals` arrives. The listeners are removed at the first
 * signal, so a second SIGTERM or SIGINT gets Node's default behaviour and ends the process at once
 * (a way out when a job will not finish).
 *
 * @example
 * closeOnSignal({ source: process, targets: [inbound, inboundWorker, turnWorker, outbound],
 *   onClosed: (error) => { process.exitCode = error ? 1 : 0; } });
 */
export function closeOnSignal(options: CloseOnSignalOptions): SignalShutdown {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let closed: Promise<void> | undefined;
  const listeners = new Map<NodeJS.Signals, () => void>();

  const dispose = (): void => {
    for (const [signal, listener] of listeners) options.source.off(signal, listener);
    listeners.clear();
  };

  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    let firstError: Error | undefined;
    for (const target of options.targets) {
      try {
        await target.close();
      } catch (error) {
        firstError ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    options.onClosed?.(firstError, signal);
  };

  for (const signal of signals) {
    const listener = (): void => {
      dispose();
      closed ??= shutdown(signal);
    };
    listeners.set(signal, listener);
    options.source.once(signal, listener);
  }

  return {
    get closed() {
      return closed;
    },
    dispose,
  };
}
