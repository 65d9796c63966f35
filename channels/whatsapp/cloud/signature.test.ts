/** Meta's webhook signature and the verify-token comparison. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { safeEqual } from '../../../src/runtime/crypto/signing.ts';
import { hubSignature, isValidHubSignature } from './signature.ts';

const SECRET = 'app-secret-for-tests';
const raw = Buffer.from('{"object":"whatsapp_business_account","entry":[]}', 'utf8');
const expected = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

describe('hubSignature', () => {
  it('is sha256= and the hex HMAC-SHA256 of the raw bytes', () => {
    expect(hubSignature(raw, SECRET)).toBe(expected);
  });
});

describe('isValidHubSignature', () => {
  it('accepts the right signature, in either case of hex', () => {
    expect(isValidHubSignature(raw, expected, SECRET)).toBe(true);
    expect(isValidHubSignature(raw, expected.toUpperCase().replace('SHA256=', 'sha256='), SECRET)).toBe(true);
  });

  it('refuses a missing, malformed, wrong-key or wrong-body signature', () => {
    expect(isValidHubSignature(raw, undefined, SECRET)).toBe(false);
    expect(isValidHubSignature(raw, '', SECRET)).toBe(false);
    expect(isValidHubSignature(raw, expected.slice(0, -2), SECRET)).toBe(false);
    expect(isValidHubSignature(raw, expected.replace('sha256=', 'sha1='), SECRET)).toBe(false);
    expect(isValidHubSignature(raw, hubSignature(raw, 'another-secret'), SECRET)).toBe(false);
    expect(isValidHubSignature(Buffer.concat([raw, Buffer.from(' ')]), expected, SECRET)).toBe(false);
  });
});

describe('safeEqual, as the verify-token check', () => {
  it('is true only for the same string', () => {
    expect(safeEqual('verify-me', 'verify-me')).toBe(true);
    expect(safeEqual('verify-me', 'verify-m')).toBe(false);
    expect(safeEqual('', 'verify-me')).toBe(false);
    expect(safeEqual('Verify-me', 'verify-me')).toBe(false);
  });
});
