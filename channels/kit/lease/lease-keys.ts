/**
 * The two Redis keys of a lease and what they hold:
 *
 * - the lease key itself, `<key>`: `<token>:<ownerId>` while someone holds it, with a TTL;
 * - the fence counter, `<key>:fence`: the highest token ever issued. It never expires, so tokens
 *   only grow. Deleting it would let old tokens write again; leave it alone.
 */
import type { Redis } from 'ioredis';

/** The Redis key of the fencing-token counter of the lease at `leaseKey`. */
export function fenceCounterKey(leaseKey: string): string {
  return `${leaseKey}:fence`;
}

/**
 * What a write needs to prove it is made on behalf of the current holder: the lease and the
 * fencing token of one acquisition. A `Fence` from `lease.ts` is one.
 */
export interface FenceRef {
  /** The lease key (`LeaseOptions.key`). */
  readonly leaseKey: string;
  /** The fencing token of the acquisition; positive integer, grows with every acquisition. */
  readonly token: number;
}

/** The value stored in the lease key while held. */
export function holderValue(token: number, ownerId: string): string {
  return `${token}:${ownerId}`;
}

/** Who holds a lease right now, as read by {@link readLeaseHolder}. */
export interface LeaseHolder {
  /** The fencing token of the holder's acquisition. */
  readonly token: number;
  /** The holder's owner id (see `LeaseOptions.ownerId`). */
  readonly ownerId: string;
  /** Milliseconds left before the lease expires unless renewed. */
  readonly ttlMs: number;
}

/**
 * Reads the current holder of the lease at `leaseKey`, for diagnostics and tests.
 *
 * @returns `undefined` when nobody holds it.
 */
export async function readLeaseHolder(redis: Redis, leaseKey: string): Promise<LeaseHolder | undefined> {
  const [value, ttlMs] = await Promise.all([redis.get(leaseKey), redis.pttl(leaseKey)]);
  if (value === null) return undefined;
  const colon = value.indexOf(':');
  const token = Number(value.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(token)) return undefined;
  return { token, ownerId: value.slice(colon + 1), ttlMs: Math.max(0, ttlMs) };
}

/** The highest fencing token issued so far for the lease at `leaseKey`; 0 when none was. */
export async function readLatestToken(redis: Redis, leaseKey: string): Promise<number> {
  const value = await redis.get(fenceCounterKey(leaseKey));
  return value === null ? 0 : Number(value);
}
