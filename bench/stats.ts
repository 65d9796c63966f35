/** Throughput and latency percentiles of one run. */
export interface Summary {
  /** Messages per second over the whole run. */
  readonly throughput: number;
  /** Median latency, ms. */
  readonly p50: number;
  /** 99th percentile latency, ms. */
  readonly p99: number;
}

/** The percentile `p` (0..100) of sorted values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Summarises latencies (ms) measured over `elapsedMs`. */
export function summarize(latencies: readonly number[], elapsedMs: number): Summary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { throughput: (latencies.length / elapsedMs) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/**
 * Pairs each message's acceptance with its delivery, whichever is seen first, and resolves `done`
 * when `expected` messages have both.
 */
export class LatencyTracker {
  readonly #accepted = new Map<string, number>();
  readonly #delivered = new Map<string, number>();
  readonly #latencies: number[] = [];
  readonly #expected: number;
  #first = Number.POSITIVE_INFINITY;
  #last = 0;
  #resolve: () => void = () => undefined;
  /** Resolves once every expected message was accepted and delivered. */
  readonly done: Promise<void>;

  constructor(expected: number) {
    this.#expected = expected;
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Marks the start of sending (for the throughput window). */
  started(at: number): void {
    this.#first = Math.min(this.#first, at);
  }

  accepted(key: string, at: number): void {
    this.#accepted.set(key, at);
    this.#pair(key);
  }

  delivered(key: string, at: number): void {
    if (this.#delivered.has(key)) return;
    this.#delivered.set(key, at);
    this.#last = Math.max(this.#last, at);
    this.#pair(key);
  }

  /** How many messages were delivered so far. */
  get count(): number {
    return this.#latencies.length;
  }

  summary(): Summary {
    return summarize(this.#latencies, this.#last - this.#first);
  }

  #pair(key: string): void {
    const accepted = this.#accepted.get(key);
    const delivered = this.#delivered.get(key);
    if (accepted === undefined || delivered === undefined) return;
    this.#latencies.push(Math.max(0, delivered - accepted));
    if (this.#latencies.length === this.#expected) this.#resolve();
  }
}
