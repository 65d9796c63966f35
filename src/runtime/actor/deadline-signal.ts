/**
 * A signal that aborts at a deadline, like `AbortSignal.timeout`, but whose timer is stopped when
 * the work ends: a turn's model call would otherwise leave its timer (and what it holds) alive
 * until the turn's deadline, minutes later, for every call made.
 */

/** A deadline signal and the function that stops its timer. */
export interface DeadlineSignal {
  /** Aborts with a `TimeoutError` `DOMException` after the delay, unless cleared first. */
  readonly signal: AbortSignal;
  /** Stops the timer; the signal then never aborts. Safe to call more than once. */
  clear(): void;
}

/**
 * Starts a deadline `delayMs` milliseconds from now (at least 1). The timer does not keep the
 * process alive.
 */
export function deadlineSignal(delayMs: number): DeadlineSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, Math.max(1, delayMs));
  timer.unref();
  return { signal: controller.signal, clear: () => { clearTimeout(timer); } };
}
