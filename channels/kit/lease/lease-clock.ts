/**
 * Time and waiting as the lease sees them: a monotonic "now" and one-shot timers, passed in so
 * that tests can drive renewal and expiry by hand ({@link systemClock} is the real one), and
 * waits that end early when an `AbortSignal` aborts.
 */

/** A monotonic clock with one-shot timers. */
export interface LeaseClock {
  /** The current time in milliseconds, from any fixed origin; must never go backwards. */
  now(): number;
  /**
   * Calls `callback` once after `delayMs` milliseconds.
   *
   * @returns A function that cancels the call if it has not happened yet (calling it twice is fine).
   */
  schedule(callback: () => void, delayMs: number): () => void;
}

/** The real clock: `performance.now()` and `setTimeout`. */
export const systemClock: LeaseClock = {
  now: () => performance.now(),
  schedule(callback, delayMs) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    return () => {
      clearTimeout(timer);
    };
  },
};

/**
 * Resolves after `delayMs` milliseconds of `clock`, or as soon as `signal` aborts (never rejects).
 *
 * @returns `true` when the time passed, `false` when `signal` aborted first.
 */
export function pause(clock: LeaseClock, delayMs: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      cancel();
      resolve(false);
    };
    const cancel = clock.schedule(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts, whichever
 * comes first. `promise` keeps running; handle its outcome yourself if it matters.
 */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}
