import { describe, expect, it } from 'vitest';
import { recentMap } from './recent-map.ts';

describe('recentMap', () => {
  it('forgets the entry set longest ago once it holds more than its size', () => {
    const map = recentMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, 2, 3]);
    // Set again, an entry is the newest.
    map.set('b', 20);
    map.set('d', 4);
    expect([map.get('b'), map.get('c'), map.get('d')]).toEqual([20, undefined, 4]);
  });

  it('with refreshOnGet, forgets the entry used longest ago', () => {
    const map = recentMap<string, number>(2, { refreshOnGet: true });
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([1, undefined, 3]);
  });

  it('keeps nothing at a size of 0', () => {
    const map = recentMap<string, number>(0);
    map.set('a', 1);
    expect(map.get('a')).toBeUndefined();
  });
});
