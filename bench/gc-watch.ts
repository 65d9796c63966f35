/**
 * Garbage collections of the bench process during a run: the latency tail of the open loop lines
 * up with them (the system, its load generator and V8's collector share one process and two cores).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

/** What the collector did during a run; pauses in ms (main thread stopped). */
export interface GcDuring {
  /** Full (mark-compact) collections: their marking runs beside the program for ~100 ms. */
  readonly majorGcs: number;
  /** Young-generation collections (scavenges). */
  readonly minorGcs: number;
  /** Longest single pause, ms. */
  readonly gcPauseMax: number;
  /** All pauses added up, ms. */
  readonly gcPauseTotal: number;
}

/** Starts counting collections; the returned function stops and reports. */
export function watchGc(): () => GcDuring {
  let majorGcs = 0;
  let minorGcs = 0;
  let gcPauseMax = 0;
  let gcPauseTotal = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs += 1;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) minorGcs += 1;
      gcPauseMax = Math.max(gcPauseMax, entry.duration);
      gcPauseTotal += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    return { majorGcs, minorGcs, gcPauseMax, gcPauseTotal };
  };
}
