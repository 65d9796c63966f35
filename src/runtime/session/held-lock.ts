/**
 * A session lock this process holds, as a turn's last script sees it: when that script finds the
 * session with nothing left to do, it lets the lock go itself (while the lock still holds
 * {@link HeldLock.token}), saving the worker the release's own round trip.
 */
export interface HeldLock {
  /** The lock's Redis key. */
  readonly key: string;
  /** The random token the lock holds while it is this process's. */
  readonly token: string;
  /**
   * The watch set of inline turns the session leaves with its lock (`queues/inline-turns.ts`), or
   * undefined for a turn run from a queue job.
   */
  readonly watchKey?: string;
  /** Told once a script let the lock go: the lease stops renewing it and its release sends nothing. */
  letGo(): void;
}
