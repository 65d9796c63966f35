import { describe, expect, it } from 'vitest';
import { expiryMemo } from './expiry-memo.ts';

describe('expiryMemo', () => {
  it('says a refresh is due for an id never refreshed, then again once the interval passed', () => {
    let clock = 5_000;
    const memo = expiryMemo(1_000, () => clock);
    expect(memo.due('a')).toBe(true);
    memo.set('a');
    expect(memo.due('a')).toBe(false);
    expect(memo.due('b')).toBe(true);
    clock += 999;
    expect(memo.due('a')).toBe(false);
    clock += 1;
    expect(memo.due('a')).toBe(true);
  });

  it('forgets the longest-remembered ids past its size: they are due again', () => {
    const memo = expiryMemo(60_000, () => 0);
    for (let index = 0; index <= 10_000; index += 1) memo.set(`id-${String(index)}`);
    expect(memo.due('id-0')).toBe(true);
    expect(memo.due('id-10000')).toBe(false);
  });
});
