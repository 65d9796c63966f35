import { hash } from 'node:crypto';

/**
 * The session id of a conversation: stable for (tenant, channel, conversation key), so every
 * message of one conversation lands in one session, whichever process receives it.
 *
 * @example sessionIdOf('default', 'web', 'c-42') // 'ses_…' (26 base-32 characters after the prefix)
 */
export function sessionIdOf(tenantId: string, channel: string, conversationKey: string): string {
  const digest = hash('sha256', `${tenantId}\u0000${channel}\u0000${conversationKey}`, 'buffer');
  return `ses_${toBase32(digest).slice(0, 26)}`;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function toBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31] ?? '';
      bits -= 5;
    }
  }
  return out;
}
