import { describe, expect, it } from 'vitest';
import { createEchoOrder } from './echo-order.ts';

describe('the echoes a process owes', () => {
  it('owes nothing at first, and nothing once every echo owed was paid', async () => {
    const echoes = createEchoOrder();
    expect(echoes.sent('c1')).toBeUndefined();
    const first = echoes.owe('c1');
    const second = echoes.owe('c1');
    const waited = echoes.sent('c1');
    let done = false;
    void waited?.then(() => { done = true; });
    first();
    first();
    await Promise.resolve();
    expect(done).toBe(false);
    expect(echoes.sent('c1')).toBe(waited);
    second();
    await waited;
    expect(done).toBe(true);
    expect(echoes.sent('c1')).toBeUndefined();
  });

  it('keeps conversations apart', () => {
    const echoes = createEchoOrder();
    const paid = echoes.owe('c1');
    expect(echoes.sent('c2')).toBeUndefined();
    paid();
    expect(echoes.sent('c1')).toBeUndefined();
  });
});
