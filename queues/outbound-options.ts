/**
 * The options and the interface of the outbound queues (see `outbound-queue.ts`), apart from the
 * implementation so the wiring can name them without reading it.
 */
import type { AddOnceResult } from './add-once.ts';
import type { ChannelSender, DeliveryAttemptEvent, OutboundDelivery } from './outbound-types.ts';
import type { RedisConnectionInput } from './redis-connections.ts';

/** Options of `createOutbound`. */
export interface OutboundOptions {
  /**
   * Redis. A client passed in is used for the queues, the workers and the ledger and is not closed;
   * it must then have `maxRetriesPerRequest: null` if workers run. Options open a fail-fast
   * producer client for the queues and, on {@link Outbound.startWorkers}, a worker client for the
   * workers and the ledger; `close()` closes both.
   */
  readonly connection: RedisConnectionInput;
  /** Key prefix of the queues and the ledger. Default `sb`. */
  readonly prefix?: string;
  /** One sender per channel id (letters, digits, `_`, `-`). */
  readonly senders: Readonly<Record<string, ChannelSender>>;
  /** Tries per delivery, the first included. Default 8. */
  readonly attempts?: number;
  /**
   * Delay before the first retry, in milliseconds; doubles on each further retry, plus up to 10%
   * random extra, and is raised to the sender's `retryAfterMs` when that is longer. Default 1000.
   */
  readonly backoffDelayMs?: number;
  /** Upper bound of the exponential part of the backoff, in milliseconds. Default 600000 (10 minutes). */
  readonly maxBackoffDelayMs?: number;
  /**
   * How long a completed delivery job is kept, in milliseconds; while kept, enqueueing the same
   * idempotency key again adds nothing (after that, the ledger still prevents a second send).
   * Default 604800000 (7 days). Removal is lazy, so a job may stay longer.
   */
  readonly dedupeWindowMs?: number;
  /** At most this many completed delivery jobs are kept per channel. Default 100000. */
  readonly dedupeMaxJobs?: number;
  /** How long a ledger entry lives after its last write, in milliseconds. Default 2592000000 (30 days). */
  readonly ledgerTtlMs?: number;
  /**
   * Called once per send attempt (and per deferral by a destination rate limit) with its outcome;
   * e.g. to append a `delivery` entry to the session's event log. Runs in the worker before the
   * job moves on, so keep it quick. A rejection is passed to `onError` and does not affect the
   * delivery. Default: none.
   */
  readonly onAttempt?: (event: DeliveryAttemptEvent) => Promise<void>;
  /** Most records kept in the failure log (see `delivery-failures.ts`). Default 1000. */
  readonly failuresMaxEntries?: number;
  /** How long a failure record is kept, in milliseconds. Default 1209600000 (14 days). */
  readonly failuresTtlMs?: number;
  /**
   * BullMQ job lock duration (`lockDuration`), in milliseconds; renewed while a send runs, so only
   * a dead worker's job waits it out. Default 5000.
   */
  readonly jobLockDurationMs?: number;
  /**
   * Time between BullMQ stalled-job checks (`stalledInterval`), in milliseconds: one script call
   * per channel and worker process each time. A dead worker's deliveries are back within the lock
   * and one interval. Default 2000.
   */
  readonly stalledIntervalMs?: number;
  /**
   * The lease of an inline send (see {@link Outbound.deliver}), in milliseconds: how long after its
   * process stopped renewing it (died, or its event loop stalled that long) the outbox sweeper
   * takes it for dead and hands it to the queue. A live process renews the leases of all its sends
   * under way in one command every quarter of this (1 a second at the default), so a slow
   * provider call keeps its lease. Default 4000.
   */
  readonly inlineLeaseMs?: number;
  /**
   * Time between outbox sweeps in each worker process, in milliseconds: one script call each.
   * With the lease, how soon a dead process's sends move on (5 s at most at the defaults).
   * Default 1000.
   */
  readonly sweepIntervalMs?: number;
  /** Receives errors of the workers and their connections. Default: ignored. */
  readonly onError?: (error: Error) => void;
}

/** The outbound queues of every configured channel. */
export interface Outbound {
  /**
   * Durably enqueues `delivery` on its channel's queue. `{ duplicate: true }` when a job with the
   * same idempotency key is queued, running, failed, or completed within the dedupe window.
   *
   * @throws SwitchboardError `config.invalid` when no sender is configured for `delivery.channel`;
   * `queue.closed` after `close()`.
   */
  enqueue(delivery: OutboundDelivery): Promise<AddOnceResult>;
  /**
   * Sends `delivery` at once when nothing stands in the way (its destination's and channel's
   * limits, a channel paused after a 429), otherwise enqueues it as {@link Outbound.enqueue} does.
   * A failed inline attempt is recorded and retried by the queue (a permanent failure is final);
   * one cut short by a crash is handed to the queue by the outbox sweeper. Resolves once the
   * delivery is sent (its receipt in the ledger) or durably queued; the `onAttempt` report of a
   * send made here is written alongside the caller's next commands, not waited for (`close()`
   * waits for it). `{ duplicate: true }` when it was sent or is being sent.
   *
   * @throws SwitchboardError as {@link Outbound.enqueue}.
   */
  deliver(delivery: OutboundDelivery): Promise<AddOnceResult>;
  /** Starts one worker per channel in this process, and the outbox sweeper. Calling it again does nothing. */
  startWorkers(): void;
  /** Stops the workers (waiting for sends in flight), closes the queues and any client opened here. */
  close(): Promise<void>;
}
