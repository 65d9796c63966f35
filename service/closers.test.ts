import { describe, expect, it } from 'vitest';
import { createClosers } from './closers.ts';

describe('closers', () => {
  it('close in their order (equal orders as added), go on past a failure, and run once', async () => {
    const closed: string[] = [];
    const failures: unknown[] = [];
    const closers = createClosers((error) => failures.push(error));
    closers.add(9, () => { closed.push('redis'); return Promise.resolve(); });
    closers.add(1, () => { closed.push('web'); return Promise.reject(new Error('web would not close')); });
    closers.add(3, () => { closed.push('inbound'); return Promise.resolve(); });
    closers.add(3, () => { closed.push('inbound-2'); return Promise.resolve(); });
    await Promise.all([closers.closeAll(), closers.closeAll()]);
    await closers.closeAll();
    expect(closed).toEqual(['web', 'inbound', 'inbound-2', 'redis']);
    expect(failures).toHaveLength(1);
  });
});
