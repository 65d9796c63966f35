import { describe, expect, it } from 'vitest';
import { deadlineSignal } from './deadline-signal.ts';

describe('deadline signal', () => {
  it('aborts with a TimeoutError at its deadline', async () => {
    const { signal } = deadlineSignal(5);
    await new Promise((resolve) => { signal.addEventListener('abort', resolve, { once: true }); });
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('never aborts once cleared', async () => {
    const deadline = deadlineSignal(5);
    deadline.clear();
    deadline.clear();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(deadline.signal.aborted).toBe(false);
  });
});
