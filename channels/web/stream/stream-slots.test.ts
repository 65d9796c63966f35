import { describe, expect, it } from 'vitest';
import { createStreamSlots, DEFAULT_MAX_STREAMS_PER_IDENTITY, DEFAULT_MAX_STREAMS_TOTAL } from './stream-slots.ts';

describe('stream slots', () => {
  it('counts per identity and in total, and refuses over either cap with a coded, retryable error', () => {
    const slots = createStreamSlots({ maxPerIdentity: 2, maxTotal: 3, retryAfterSeconds: 4 });
    slots.acquire('a');
    slots.acquire('a');
    expect(() => slots.acquire('a')).toThrow(expect.objectContaining({ code: 'http.too_many_streams', retryable: true, details: { scope: 'identity', limit: 2, retryAfterSeconds: 4 } }) as Error);
    slots.acquire('b');
    expect(() => slots.acquire('c')).toThrow(expect.objectContaining({ details: { scope: 'process', limit: 3, retryAfterSeconds: 4 } }) as Error);
    expect([slots.open('a'), slots.open('b'), slots.open('c'), slots.open()]).toEqual([2, 1, 0, 3]);
  });

  it('gives a slot back once, however often its release is called', () => {
    const slots = createStreamSlots({ maxPerIdentity: 1 });
    const release = slots.acquire('a');
    expect(() => { slots.check('a'); }).toThrow();
    release();
    release();
    expect([slots.open('a'), slots.open()]).toEqual([0, 0]);
    slots.check('a');
    slots.acquire('a');
    expect(slots.open()).toBe(1);
  });

  it('has the documented defaults', () => {
    expect([DEFAULT_MAX_STREAMS_PER_IDENTITY, DEFAULT_MAX_STREAMS_TOTAL]).toEqual([8, 2000]);
    const slots = createStreamSlots();
    for (let index = 0; index < 8; index += 1) slots.acquire('a');
    expect(() => { slots.check('a'); }).toThrow(expect.objectContaining({ details: { scope: 'identity', limit: 8, retryAfterSeconds: 10 } }) as Error);
  });
});
