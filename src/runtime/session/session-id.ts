import { hash } from 'node:crypto';
import { recentMap } from '../memo/recent-map.ts';

/** Base-32 characters of an id after its `ses_` prefix (130 bits of the digest). */
const ID_CHARS = 26;

/** The ids this process derived last: every message of a conversation asks for the same one. */
const derived = recentMap<string, string>(10_000);

/**
 * The session id of a conversation: stable for (tenant, channel, conversation key), so every
 * message of one conversation lands in one session, whichever process receives it.
 *
 * @example sessionIdOf('default', 'web', 'c-42') // 'ses_…' (26 base-32 characters after the prefix)
 */
export function sessionIdOf(tenantId: string, channel: string, conversationKey: string): string {
  const key = `${tenantId}\u0000${channel}\u0000${conversationKey}`;
  let id = derived.get(key);
  if (id === undefined) {
    id = `ses_${toBase32(hash('sha256', key, 'buffer'), ID_CHARS)}`;
    derived.set(key, id);
  }
  return id;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** The first `chars` base-32 characters of `bytes` (which must hold at least `chars` × 5 bits). */
function toBase32(bytes: Uint8Array, chars: number): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31] ?? '';
      bits -= 5;
      if (out.length === chars) return out;
    }
  }
  return out;
}
