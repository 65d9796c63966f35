/**
 * Seeded pseudo-random numbers for the chaos run: the same seed gives the same plan (which
 * conversations ask for approvals, when faults strike, how slow each model call is).
 */

/** A source of numbers in [0, 1), deterministic for its seed. */
export interface Random {
  /** The next number in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  between(min: number, max: number): number;
}

/** mulberry32: small, fast and good enough to spread faults and latencies. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, between: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

/** A number in [0, 1) fixed by `seed` and `key` alone (FNV-1a), for choices made per model call. */
export function hashUnit(seed: number, key: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return createRandom(hash >>> 0).next();
}
