/**
 * What a starting process has opened so far, closed in one fixed order: when it stops, and when
 * its start-up fails half-way (so a failed start leaves no connection, worker or server behind).
 */

/** A thing to close: an order (lower closes first) and how. */
interface Closer {
  readonly order: number;
  readonly close: () => Promise<unknown>;
}

/** The closers of one process. */
export interface Closers {
  /** Registers `close` to run at `order` (lower first; equal orders in the order added). */
  add(order: number, close: () => Promise<unknown>): void;
  /** Closes everything registered, once; a close that fails is reported and the rest still run. */
  closeAll(): Promise<void>;
}

/** Creates an empty set of closers; `onError` hears of each close that failed. */
export function createClosers(onError: (error: unknown) => void): Closers {
  const closers: Closer[] = [];
  let closing: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    // Array sorting is stable: equal orders stay in the order added.
    for (const closer of [...closers].sort((a, b) => a.order - b.order)) await closer.close().catch(onError);
  };
  return {
    add(order, close) {
      closers.push({ order, close });
    },
    closeAll() {
      closing ??= run();
      return closing;
    },
  };
}
