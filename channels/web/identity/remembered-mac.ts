/**
 * The HMACs every web request checks (its session cookie's and its CSRF token's), remembered once a
 * request carried the right one: a browser sends the same cookie and token with each message, and
 * computing both MACs again was a few percent of the service's CPU per message. Only MACs that
 * matched are kept, so forged cookies (any well-formed session id) neither fill nor flush the
 * memory; the comparison stays constant-time (`sameMac`).
 */
import { hmac, sameMac } from '../../../src/runtime/crypto/signing.ts';

/** How many MACs are remembered per secret before the memory is emptied and starts again. */
const REMEMBERED_PER_SECRET = 10_000;

const bySecret = new Map<string, Map<string, string>>();

/**
 * Whether `given` is the HMAC of `text` under `secret` ({@link hmac}), computed only when no
 * request has shown the right one yet (about 10 000 kept per secret; about 1 MB).
 */
export function macMatches(secret: string, text: string, given: string): boolean {
  let macs = bySecret.get(secret);
  const remembered = macs?.get(text);
  if (remembered !== undefined) return sameMac(given, remembered);
  const expected = hmac(secret, text);
  if (!sameMac(given, expected)) return false;
  if (macs === undefined) {
    macs = new Map();
    bySecret.set(secret, macs);
  }
  if (macs.size >= REMEMBERED_PER_SECRET) macs.clear();
  macs.set(text, expected);
  return true;
}
