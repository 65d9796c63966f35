import { describe, expect, it } from 'vitest';
import { hmac } from '../../../src/runtime/crypto/signing.ts';
import { macMatches } from './remembered-mac.ts';

describe('remembered MACs', () => {
  it('accept the HMAC of the text under the secret, and only it, for each secret apart', () => {
    const right = hmac('one secret', 'sid:a');
    expect(macMatches('one secret', 'sid:a', right)).toBe(true);
    // Now remembered: still right, and still the only value accepted.
    expect(macMatches('one secret', 'sid:a', right)).toBe(true);
    expect(macMatches('one secret', 'sid:a', hmac('one secret', 'sid:b'))).toBe(false);
    expect(macMatches('another secret', 'sid:a', right)).toBe(false);
    expect(macMatches('another secret', 'sid:a', hmac('another secret', 'sid:a'))).toBe(true);
    expect(macMatches('one secret', 'csrf:a', right)).toBe(false);
  });

  it('refuse a forged value the first time and every time after', () => {
    const forged = hmac('guessed secret', 'sid:x');
    for (let n = 0; n < 3; n += 1) expect(macMatches('the secret', 'sid:x', forged)).toBe(false);
    expect(macMatches('the secret', 'sid:x', hmac('the secret', 'sid:x'))).toBe(true);
  });

  it('stay right past the number remembered', () => {
    for (let n = 0; n < 10_050; n += 1) expect(macMatches('busy secret', `sid:${n}`, hmac('busy secret', `sid:${n}`))).toBe(true);
    for (const n of [0, 9_999, 10_000, 10_049]) {
      expect(macMatches('busy secret', `sid:${n}`, hmac('busy secret', `sid:${n}`))).toBe(true);
      expect(macMatches('busy secret', `sid:${n}`, hmac('busy secret', `sid:${n + 1}`))).toBe(false);
    }
  });
});
