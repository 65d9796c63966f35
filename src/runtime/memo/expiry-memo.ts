/**
 * When this process last set the expiry of each of some keys (a session's log, a task's keys), so
 * a write refreshes it only once `refreshMs` have passed since: a busy key is written many times
 * an hour, and each refresh is a command. The key then outlives its last write by between its
 * expiry less `refreshMs` and its expiry. Another process, or a forgotten key, refreshes again.
 */
import { recentMap } from './recent-map.ts';

/** Keys whose last refresh an {@link expiryMemo} remembers; past this, the longest-remembered are forgotten. */
const REMEMBERED_EXPIRIES = 10_000;

/** An {@link expiryMemo}: `due` says whether a write should refresh `id`'s expiry, `set` records that it did. */
export interface ExpiryMemo {
  due(id: string): boolean;
  set(id: string): void;
}

/** A memo refreshing each id at most once per `refreshMs` (ms), by the clock `now` (ms since the epoch). */
export function expiryMemo(refreshMs: number, now: () => number): ExpiryMemo {
  const setAt = recentMap<string, number>(REMEMBERED_EXPIRIES);
  return {
    due: (id) => now() - (setAt.get(id) ?? -Infinity) >= refreshMs,
    set: (id) => { setAt.set(id, now()); },
  };
}
