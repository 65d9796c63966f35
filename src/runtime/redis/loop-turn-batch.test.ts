import { describe, expect, it } from 'vitest';
import { loopTurnBatch } from './loop-turn-batch.ts';

/** A batch whose flushes are recorded, failing while `failing` is set. */
function recorded(maxItems?: number): { add: (item: number) => Promise<void>; flushes: number[][]; fail: (on: boolean) => void } {
  const flushes: number[][] = [];
  let failing = false;
  const add = loopTurnBatch<number>(async (items) => {
    await Promise.resolve();
    if (failing) throw new Error('Redis went away');
    flushes.push([...items]);
  }, maxItems);
  return { add, flushes, fail: (on) => { failing = on; } };
}

describe('loop turn batch', () => {
  it('flushes what one loop turn added together, from every callback of that turn, and each adder waits for it', async () => {
    const { add, flushes } = recorded();
    const fromTimers = await new Promise<Promise<void>[]>((done) => {
      const added: Promise<void>[] = [];
      setTimeout(() => { added.push(add(1)); }, 0);
      setTimeout(() => { added.push(add(2)); queueMicrotask(() => { added.push(add(3)); done(added); }); }, 0);
    });
    await Promise.all(fromTimers);
    expect(flushes).toEqual([[1, 2, 3]]);
    await add(4);
    expect(flushes).toEqual([[1, 2, 3], [4]]);
  });

  it('flushes a full batch at once and starts another', async () => {
    const { add, flushes } = recorded(2);
    await Promise.all([add(1), add(2), add(3)]);
    expect(flushes).toEqual([[1, 2], [3]]);
  });

  it('fails every adder of a failed flush, and the next batch goes on', async () => {
    const { add, flushes, fail } = recorded();
    fail(true);
    const results = await Promise.allSettled([add(1), add(2)]);
    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual(['Error: Redis went away', 'Error: Redis went away']);
    fail(false);
    await add(3);
    expect(flushes).toEqual([[3]]);
  });

  it('fails the adders of a flush that throws before it returns a promise', async () => {
    const add = loopTurnBatch<number>((items) => {
      if (items.includes(1)) throw new Error('cannot build the command');
      return Promise.resolve();
    });
    const results = await Promise.allSettled([add(1), add(2)]);
    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual(['Error: cannot build the command', 'Error: cannot build the command']);
    await expect(add(3)).resolves.toBeUndefined();
  });
});
