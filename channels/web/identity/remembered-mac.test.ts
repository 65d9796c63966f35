import { describe, expect, it } from 'vitest';
import { hmac } from '../../kit/signing.ts';
import { rememberedMac } from './remembered-mac.ts';

describe('remembered MACs', () => {
  it('are the HMAC of the text under the secret, for each secret apart', () => {
    expect(rememberedMac('one secret', 'sid:a')).toBe(hmac('one secret', 'sid:a'));
    expect(rememberedMac('one secret', 'sid:a')).toBe(hmac('one secret', 'sid:a'));
    expect(rememberedMac('another secret', 'sid:a')).toBe(hmac('another secret', 'sid:a'));
    expect(rememberedMac('one secret', 'csrf:a')).toBe(hmac('one secret', 'csrf:a'));
  });

  it('stay right past the number remembered', () => {
    for (let n = 0; n < 10_050; n += 1) rememberedMac('busy secret', `sid:${n}`);
    for (const n of [0, 9_999, 10_000, 10_049]) expect(rememberedMac('busy secret', `sid:${n}`)).toBe(hmac('busy secret', `sid:${n}`));
  });
});
