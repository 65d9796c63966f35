/** What one chaos run does: its load, its faults and its limits. */

/** Redis's `appendfsync`: `always` fsyncs before answering a write, `everysec` once a second. */
export type FsyncPolicy = 'always' | 'everysec';

/** The faults a run injects, by kind. */
export interface FaultCounts {
  /** Worker processes SIGKILLed (each replaced by a new one at once). */
  readonly workerKills: number;
  /** Web process SIGKILLed and started again on the same port. */
  readonly webRestarts: number;
  /** Redis stopped with SIGTERM (it flushes its append-only file) and started again. */
  readonly redisTerms: number;
  /** Redis SIGKILLed (no flush) and started again on the same port and data folder. */
  readonly redisKills: number;
}

/** One run of the chaos runner. Every duration is in milliseconds. */
export interface ChaosPlan {
  /** Names the run in the report, e.g. `full` or `ci`. */
  readonly name: string;
  /** Seeds every random choice (conversation kinds, pacing, latencies, fault times). */
  readonly seed: number;
  readonly fsync: FsyncPolicy;
  /** Web chat conversations that send {@link messagesPerConversation} messages each. */
  readonly conversations: number;
  readonly messagesPerConversation: number;
  /** Share (0..1) of those conversations with one message whose answer needs an approval. */
  readonly approvalShare: number;
  /** Extra one-message conversations whose every model call is refused with 529 (a persistent storm). */
  readonly stormConversations: number;
  /** Share (0..1) of model calls first refused with 529 or 500 (a transient storm the SDK retries). */
  readonly flakyShare: number;
  /** Worker processes running at once. */
  readonly workers: number;
  /** The time over which the messages are spread; the faults fall within it. */
  readonly loadMs: number;
  /** Bounds of each model call's latency, chosen per call by the seed. */
  readonly modelLatencyMs: readonly [number, number];
  readonly faults: FaultCounts;
  /** How long the run waits, after the load and the last fault, for every accepted message to be answered. */
  readonly drainTimeoutMs: number;
  /**
   * The service's session-lock TTL and BullMQ job lock, in ms (how soon a killed worker's turns
   * move on). Default: the service's own (2.5 s each, see `createTurnWorker`).
   */
  readonly lockTtlMs?: number;
}

/** The default of `npm run chaos`: thousands of messages over hundreds of conversations, `always`. */
export const FULL_PLAN: ChaosPlan = {
  name: 'full',
  seed: 13,
  fsync: 'always',
  conversations: 400,
  messagesPerConversation: 10,
  approvalShare: 0.1,
  stormConversations: 10,
  flakyShare: 0.05,
  workers: 3,
  loadMs: 150_000,
  // Up to a second per call, so that several turns run on each worker when one is killed.
  modelLatencyMs: [20, 1_000],
  faults: { workerKills: 8, webRestarts: 2, redisTerms: 1, redisKills: 2 },
  drainTimeoutMs: 120_000,
};

/** The shorter second run of `npm run chaos`: the same faults under `appendfsync everysec`. */
export const EVERYSEC_PLAN: ChaosPlan = {
  ...FULL_PLAN,
  name: 'short',
  fsync: 'everysec',
  conversations: 150,
  loadMs: 60_000,
  stormConversations: 4,
  faults: { workerKills: 3, webRestarts: 1, redisTerms: 1, redisKills: 2 },
};

/** `npm run chaos -- --quick`: a minute or so, every kind of fault once or more. */
export const QUICK_PLAN: ChaosPlan = {
  ...FULL_PLAN,
  name: 'quick',
  conversations: 80,
  messagesPerConversation: 8,
  stormConversations: 4,
  workers: 2,
  loadMs: 40_000,
  faults: { workerKills: 2, webRestarts: 1, redisTerms: 1, redisKills: 1 },
  drainTimeoutMs: 60_000,
};

/** The CI test's plan: a few hundred messages, one fault of each kind. */
export const CI_PLAN: ChaosPlan = {
  ...QUICK_PLAN,
  name: 'ci',
  conversations: 30,
  messagesPerConversation: 12,
  approvalShare: 0.15,
  stormConversations: 2,
  loadMs: 30_000,
  faults: { workerKills: 1, webRestarts: 1, redisTerms: 1, redisKills: 1 },
};
