/**
 * The `useX()` shape of the test helpers: a resource started once in `beforeAll`, stopped in
 * `afterAll`, and read through a getter that throws when called before it was started.
 */
import { afterAll, beforeAll } from 'vitest';

/** Options of {@link useStarted}. */
export interface UseStartedOptions {
  /** Named in the getter's error, e.g. `useDovecot()`. */
  readonly name: string;
  /** `beforeAll`'s timeout, in ms; vitest's default when unset. */
  readonly startTimeoutMs?: number;
}

/**
 * Starts a resource for the test file and stops it after; returns a getter.
 *
 * @example
 * const browser = useStarted(() => chromium.launch(), (started) => started.close(), { name: 'useBrowser()' });
 */
export function useStarted<T>(start: () => Promise<T>, stop: (started: T) => Promise<void>, options: UseStartedOptions): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, options.startTimeoutMs);
  afterAll(async () => {
    const stopping = started;
    started = undefined;
    if (stopping !== undefined) await stop(stopping);
  });
  return () => {
    if (started === undefined) throw new Error(`${options.name}: only available inside tests and hooks that run after beforeAll`);
    return started;
  };
}
