/**
 * The HMACs every web request checks (its session cookie's and its CSRF token's), computed once per
 * session and secret rather than on every request: a browser sends the same cookie and token with
 * each message. What is remembered is what this process would compute anyway from the session id a
 * request names, so a forged cookie or token gains nothing; the comparison stays constant-time
 * (`sameMac`).
 */
import { hmac } from '../../kit/signing.ts';

/** How many MACs are remembered per secret before the memory is emptied and starts again. */
const REMEMBERED_PER_SECRET = 10_000;

const bySecret = new Map<string, Map<string, string>>();

/** {@link hmac} of `text` under `secret`, remembered (about 10 000 per secret; about 1 MB). */
export function rememberedMac(secret: string, text: string): string {
  let macs = bySecret.get(secret);
  if (macs === undefined) {
    macs = new Map();
    bySecret.set(secret, macs);
  }
  let mac = macs.get(text);
  if (mac === undefined) {
    if (macs.size >= REMEMBERED_PER_SECRET) macs.clear();
    mac = hmac(secret, text);
    macs.set(text, mac);
  }
  return mac;
}
