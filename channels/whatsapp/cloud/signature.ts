/**
 * Meta's webhook checks: `X-Hub-Signature-256` (`sha256=` and the hex HMAC-SHA256 of the raw body,
 * keyed with the app secret), compared in constant time. The handshake's `hub.verify_token` is
 * compared with `safeEqual` (`src/runtime/crypto/signing.ts`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `X-Hub-Signature-256` value Meta sends with `raw`.
 *
 * @example
 * hubSignature(Buffer.from('{}'), 'app-secret') // 'sha256=…' (64 hex digits)
 */
export function hubSignature(raw: Uint8Array, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

/** Whether `header` is the signature of `raw` under `appSecret`; `false` when missing or malformed. */
export function isValidHubSignature(raw: Uint8Array, header: string | undefined, appSecret: string): boolean {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '');
  if (match?.[1] === undefined) return false;
  const given = Buffer.from(match[1], 'hex');
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return timingSafeEqual(given, expected);
}
