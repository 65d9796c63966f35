/**
 * A map that keeps only its most recent entries: for what a process remembers to spare itself
 * work (a history it read, a digest it computed, when it last set an expiry), where forgetting
 * costs a redo, never a wrong answer.
 */

/** A {@link recentMap}. */
export interface RecentMap<K, V> {
  get(key: K): V | undefined;
  /** Sets `key` as the newest entry, forgetting the oldest past the map's size. */
  set(key: K, value: V): void;
  /** Forgets `key`. */
  delete(key: K): void;
}

/** Options of {@link recentMap}. */
export interface RecentMapOptions {
  /** Whether `get` makes the entry the newest (least recently used goes first). Default `false`: the oldest set goes first. */
  readonly refreshOnGet?: boolean;
}

/** A map of at most `size` entries (none when `size` is 0 or less). */
export function recentMap<K, V>(size: number, options: RecentMapOptions = {}): RecentMap<K, V> {
  const entries = new Map<K, V>();
  const newest = (key: K, value: V): void => {
    entries.delete(key);
    entries.set(key, value);
  };
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined && options.refreshOnGet === true) newest(key, value);
      return value;
    },
    set(key, value) {
      if (size <= 0) return;
      newest(key, value);
      // Most sets leave the map within its size: no iterator for them.
      if (entries.size <= size) return;
      for (const oldest of entries.keys()) {
        if (entries.size <= size) break;
        entries.delete(oldest);
      }
    },
    delete(key) {
      entries.delete(key);
    },
  };
}
