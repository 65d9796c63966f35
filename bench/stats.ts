/** Throughput and latency percentiles of one run. */
export interface Summary {
  /** Messages per second, from the first send to the last delivery. */
  readonly throughput: number;
  /** Median latency, ms (warm-up excluded). */
  readonly p50: number;
  /** 99th percentile latency, ms (warm-up excluded). */
  readonly p99: number;
  /** How many latencies the percentiles are taken over. */
  readonly measured: number;
}

/** The percentile `p` (0..100) of sorted values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** The median of some values (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/**
 * The ratios of runs made side by side (run i of `ours` over run i of `theirs`, one right after the
 * other) and their median: a slower spell of the machine lowers both runs of a pair rather than
 * one system's median.
 */
export function pairedRatios(ours: readonly number[], theirs: readonly number[]): { median: number; each: number[] } {
  const each = ours.map((run, index) => run / (theirs[index] ?? Number.NaN));
  return { median: median(each), each };
}

/** Options of {@link LatencyTracker}. */
export interface TrackerOptions {
  /** How many of the first accepted messages count for throughput but not for the percentiles. Default 0. */
  readonly warmUp?: number;
}

/**
 * Pairs each message's acceptance with its delivery, whichever is seen first, and resolves `done`
 * when `expected` messages have both.
 */
export class LatencyTracker {
  readonly #accepted = new Map<string, { at: number; order: number }>();
  readonly #delivered = new Map<string, number>();
  readonly #latencies: number[] = [];
  readonly #expected: number;
  readonly #warmUp: number;
  #paired = 0;
  #first = Number.POSITIVE_INFINITY;
  #last = 0;
  #resolve: () => void = () => undefined;
  /** Resolves once every expected message was accepted and delivered. */
  readonly done: Promise<void>;

  constructor(expected: number, options: TrackerOptions = {}) {
    this.#expected = expected;
    this.#warmUp = options.warmUp ?? 0;
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    if (expected === 0) this.#resolve();
  }

  /** How many messages this tracker waits for. */
  get expected(): number {
    return this.#expected;
  }

  /** How many messages were both accepted and delivered so far. */
  get count(): number {
    return this.#paired;
  }

  /** Marks the start of sending (for the throughput window). */
  started(at: number): void {
    this.#first = Math.min(this.#first, at);
  }

  /** Records when message `key` was sent (the latency's start). */
  accepted(key: string, at: number): void {
    this.started(at);
    this.#accepted.set(key, { at, order: this.#accepted.size });
    this.#pair(key);
  }

  /** Records when message `key`'s answer arrived (the latency's end); later duplicates are ignored. */
  delivered(key: string, at: number): void {
    if (this.#delivered.has(key)) return;
    this.#delivered.set(key, at);
    this.#last = Math.max(this.#last, at);
    this.#pair(key);
  }

  /** Throughput over the whole run, percentiles over the messages after the warm-up. */
  summary(): Summary {
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    const elapsed = this.#last - this.#first;
    return { throughput: elapsed > 0 ? (this.#paired / elapsed) * 1000 : Number.NaN, p50: percentile(sorted, 50), p99: percentile(sorted, 99), measured: sorted.length };
  }

  #pair(key: string): void {
    const accepted = this.#accepted.get(key);
    const delivered = this.#delivered.get(key);
    if (accepted === undefined || delivered === undefined) return;
    this.#paired += 1;
    if (accepted.order >= this.#warmUp) this.#latencies.push(Math.max(0, delivered - accepted.at));
    if (this.#paired === this.#expected) this.#resolve();
  }
}

/** Resolves when every message of `tracker` was delivered; rejects after `timeoutMs` with how many were. */
export async function delivered(tracker: LatencyTracker, timeoutMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what}: only ${tracker.count} of ${tracker.expected} messages delivered in ${(timeoutMs / 1000).toFixed(0)} s`));
    }, timeoutMs);
  });
  try {
    await Promise.race([tracker.done, late]);
  } finally {
    clearTimeout(timer);
  }
}
