/**
 * Job ids of the queues. BullMQ drops an `add` whose job id already exists, which is how
 * redeliveries are dropped at enqueue. Its rules for custom ids: no `:` and not all digits. Every id
 * here is a short letter prefix plus the hex SHA-256 of a caller key, so it satisfies both rules
 * whatever the key contains, and has a fixed length.
 */
import { sha256Hex as hashHex } from '../src/runtime/crypto/signing.ts';
import { recentMap } from '../src/runtime/memo/recent-map.ts';

/** Digests kept for the keys hashed last: one delivery's key is hashed for its job id, ledger and tag. */
const RECENT_DIGESTS = 256;
const recentDigests = recentMap<string, string>(RECENT_DIGESTS);

/** Lower-case hex SHA-256 of the UTF-8 bytes of `value` (64 characters). */
export function sha256Hex(value: string): string {
  let digest = recentDigests.get(value);
  if (digest === undefined) {
    digest = hashHex(value);
    recentDigests.set(value, digest);
  }
  return digest;
}

/** Job id of an injection on the inbound queue: `in-` + sha256(injection id). */
export function inboundJobId(injectionId: string): string {
  return `in-${sha256Hex(injectionId)}`;
}

/** Job id of a turn on the turn queue: `turn-` + sha256(schedule key). */
export function turnJobId(key: string): string {
  return `turn-${sha256Hex(key)}`;
}

/** Job id of a delivery on an outbound queue: `out-` + sha256(idempotency key). */
export function outboundJobId(idempotencyKey: string): string {
  return `out-${sha256Hex(idempotencyKey)}`;
}
