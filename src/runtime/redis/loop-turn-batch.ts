/**
 * Group commit for writes many turns make at once: the items added during one turn of the event
 * loop are handed to one `flush` in that turn's check phase (`setImmediate`), and every adder
 * waits for that flush. A caller sees what it saw before (its write done, or its error) while a
 * busy process sends one command for many writes. When the process is idle a turn has one item
 * and the flush runs as soon as its callback has: no timer, no added wait.
 */

/** Adds an item to the current loop turn's batch; resolves once the batch was flushed. */
export type LoopTurnBatch<Item> = (item: Item) => Promise<void>;

interface Pending<Item> {
  readonly items: Item[];
  readonly done: Promise<void>;
  settle: (error?: unknown) => void;
}

/**
 * A {@link LoopTurnBatch} over `flush`. A batch reaching `maxItems` (default 200) is flushed at
 * once and the next item starts a new one, so one command never grows without bound.
 */
export function loopTurnBatch<Item>(flush: (items: readonly Item[]) => Promise<void>, maxItems = 200): LoopTurnBatch<Item> {
  let pending: Pending<Item> | undefined;

  const run = (batch: Pending<Item>): void => {
    if (pending === batch) pending = undefined;
    // A flush that throws before it returns a promise fails its batch too, not the timer's callback.
    new Promise<void>((resolve) => { resolve(flush(batch.items)); }).then(() => { batch.settle(); }, (error: unknown) => { batch.settle(error ?? new Error('batch flush failed')); });
  };

  const open = (): Pending<Item> => {
    const { promise: done, resolve, reject } = Promise.withResolvers<undefined>();
    const batch: Pending<Item> = { items: [], done, settle: (error) => { if (error === undefined) resolve(undefined); else reject(error); } };
    setImmediate(() => { if (pending === batch) run(batch); });
    return batch;
  };

  return (item) => {
    const batch = pending ?? (pending = open());
    batch.items.push(item);
    if (batch.items.length >= maxItems) run(batch);
    return batch.done;
  };
}
