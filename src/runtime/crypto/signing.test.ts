import { describe, expect, it } from 'vitest';
import { hmac, isRandomToken, randomToken, safeEqual, sameMac } from './signing.ts';

describe('comparing secrets', () => {
  const mac = hmac('secret', 'sid:abc');

  it('accepts the same MAC and refuses any other', () => {
    expect(mac).toHaveLength(43);
    expect(sameMac(mac, hmac('secret', 'sid:abc'))).toBe(true);
    expect(sameMac(hmac('other secret', 'sid:abc'), mac)).toBe(false);
    expect(sameMac(`${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, mac)).toBe(false);
  });

  it('refuses values of another length, and of the same length in characters but not in bytes', () => {
    expect(sameMac(mac.slice(1), mac)).toBe(false);
    expect(sameMac(`${mac}A`, mac)).toBe(false);
    expect(sameMac('', mac)).toBe(false);
    expect(sameMac(`é${mac.slice(1)}`, mac)).toBe(false);
  });

  it('compares any two strings with safeEqual, whatever their lengths', () => {
    expect(safeEqual('token', 'token')).toBe(true);
    expect(safeEqual('token', 'tokens')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });

  it('makes 128-bit random tokens of the documented shape', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => randomToken()));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(isRandomToken(token)).toBe(true);
    expect(isRandomToken('short')).toBe(false);
  });
});
