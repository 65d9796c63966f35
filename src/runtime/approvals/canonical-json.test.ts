import { describe, expect, it } from 'vitest';
import { argsHash, canonicalJson } from './canonical-json.ts';

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order, drops undefined members, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [3, { z: true, y: null }], c: undefined, d: 'x' })).toBe('{"a":[3,{"y":null,"z":true}],"b":1,"d":"x"}');
  });

  it('gives the same hash whatever the key order, nested too', () => {
    const one = { to: 'a@example.com', options: { cc: ['b', 'c'], priority: { level: 2, label: 'hi' } } };
    const two = { options: { priority: { label: 'hi', level: 2 }, cc: ['b', 'c'] }, to: 'a@example.com' };
    expect(argsHash(one)).toBe(argsHash(two));
    expect(argsHash(one)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes the hash when array order or a nested value changes', () => {
    expect(argsHash({ cc: ['b', 'c'] })).not.toBe(argsHash({ cc: ['c', 'b'] }));
    expect(argsHash({ a: { b: 1 } })).not.toBe(argsHash({ a: { b: 2 } }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: '1' }));
  });

  it('refuses values JSON cannot hold, naming the path', () => {
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/"f" is a function/);
    expect(() => canonicalJson({ a: { n: Number.NaN } })).toThrow(/"a.n" is NaN/);
    expect(() => canonicalJson({ big: 1n })).toThrow(/bigint/);
    expect(() => canonicalJson({ when: new Date(0) })).toThrow(/not a plain object/);
    expect(() => canonicalJson([1, undefined])).toThrow(/undefined inside an array/);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/refers back to itself/);
  });

  it('accepts the same object twice in different branches (not a cycle)', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
