/**
 * A singleton lease with a fencing token: at most one holder of `key` at a time across every
 * process, handed over within about one TTL when the holder dies. Every acquisition gets a token
 * one higher than any before it (a Redis counter incremented in the same script as the `SET NX
 * PX`), so writes checked against the token (`fenced-write.ts`) refuse a holder that lost the
 * lease without knowing it yet.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { runScript } from '../../../src/runtime/redis/redis-script.ts';
import { abortable, pause, systemClock, type LeaseClock } from './lease-clock.ts';
import { hold, type Fence, type Holding } from './lease-hold.ts';
import { fenceCounterKey, holderValue } from './lease-keys.ts';
import { ACQUIRE, RELEASE } from './lease-scripts.ts';

export type { Fence } from './lease-hold.ts';

/** Options of {@link createLease}. */
export interface LeaseOptions {
  /** Client for the lease commands; never closed by the lease. Not one used for blocking commands. */
  readonly redis: Redis;
  /** The lease key, e.g. `sb:lease:imap:<account>`. The fence counter lives at `<key>:fence`. */
  readonly key: string;
  /** How long the lease lives without renewal, in milliseconds (rounded up to a whole number). Default 10000. */
  readonly ttlMs?: number;
  /** Time between renewals, in milliseconds; below `ttlMs`. Default `ttlMs / 3`. */
  readonly renewEveryMs?: number;
  /** Longest wait between two attempts of {@link Lease.acquire}, in milliseconds. Default `ttlMs / 4`. */
  readonly pollEveryMs?: number;
  /** Who holds it, stored next to the token for operators (e.g. `host:pid`). Default a random UUID. */
  readonly ownerId?: string;
  /** Time source and timers. Default {@link systemClock}. */
  readonly clock?: LeaseClock;
  /** Told about Redis errors that the lease retries (acquire attempts, renewals). Default: ignored. */
  readonly onError?: (error: SwitchboardError) => void;
}

/** A lease; see {@link createLease}. One acquisition at a time per `Lease` object. */
export interface Lease {
  readonly key: string;
  readonly ownerId: string;
  /**
   * Waits until this process holds the lease, then keeps renewing it until it is lost or released.
   * Redis errors while waiting are reported to `onError` and retried. Rejects with `signal.reason`
   * as soon as `signal` aborts (even while Redis is not answering), and at once with an `internal`
   * error when this `Lease` already holds or is acquiring.
   */
  acquire(signal?: AbortSignal): Promise<Fence>;
  /**
   * Stops renewal, aborts the current fence and deletes the lease key if it still holds this
   * acquisition. Resolves `true` when deleted, `false` when not held (or no longer ours).
   */
  release(): Promise<boolean>;
}

function checkMs(name: string, value: number, below = Infinity): number {
  if (!Number.isFinite(value) || value <= 0 || value >= below) {
    throw new SwitchboardError('config.invalid', `${name} must be a positive number of milliseconds below ${below}`, {
      details: { [name]: value },
    });
  }
  return value;
}

/**
 * Creates a lease on `options.key`.
 *
 * @example
 * const lease = createLease({ redis, key: `sb:lease:imap:${account}`, ttlMs: 10_000 });
 * const fence = await lease.acquire();
 * fence.signal.addEventListener('abort', () => { listener.stop(); });
 */
export function createLease(options: LeaseOptions): Lease {
  const { redis, key } = options;
  const ttlMs = Math.ceil(checkMs('ttlMs', options.ttlMs ?? 10_000));
  const renewEveryMs = checkMs('renewEveryMs', options.renewEveryMs ?? ttlMs / 3, ttlMs);
  const pollEveryMs = checkMs('pollEveryMs', options.pollEveryMs ?? ttlMs / 4);
  const ownerId = options.ownerId ?? randomUUID();
  const clock = options.clock ?? systemClock;
  const onError = options.onError ?? ((): void => undefined);
  const settings = { redis, key, ownerId, ttlMs, renewEveryMs, clock, onError };
  let holding: Holding | undefined;
  let acquiring = false;

  /** Sends one ACQUIRE: what was won, or how long to wait before the next attempt. */
  async function attempt(): Promise<{ readonly token: number; readonly sentAt: number } | number> {
    const sentAt = clock.now();
    const reply = (await runScript(redis, ACQUIRE, [key, fenceCounterKey(key)], [ownerId, ttlMs])) as [number, number];
    const [won, value] = reply;
    if (won === 1) return { token: value, sentAt };
    // `value` is the holder's remaining TTL: try again just after it would expire.
    return value >= 0 ? Math.min(pollEveryMs, value + 1) : pollEveryMs;
  }

  /** Gives back what an attempt won after its caller stopped waiting (Redis was slow to answer). */
  function giveBackLate(pending: ReturnType<typeof attempt>): void {
    pending
      .then((won) => (typeof won === 'number' ? undefined : runScript(redis, RELEASE, [key], [holderValue(won.token, ownerId)])))
      .catch(() => undefined); // unreleased, it expires after one TTL
  }

  async function acquire(signal?: AbortSignal): Promise<Fence> {
    if (acquiring || (holding !== undefined && !holding.fence.signal.aborted)) {
      throw new SwitchboardError('internal', `Lease ${key} is already held or being acquired by this owner`, { details: { key, ownerId } });
    }
    acquiring = true;
    try {
      for (;;) {
        signal?.throwIfAborted();
        let waitMs = pollEveryMs;
        const pending = attempt();
        try {
          const result = await abortable(pending, signal);
          if (typeof result !== 'number') {
            holding = hold(settings, result.token, result.sentAt);
            return holding.fence;
          }
          waitMs = result;
        } catch (error) {
          if (signal?.aborted === true) {
            giveBackLate(pending);
            signal.throwIfAborted();
          }
          onError(new SwitchboardError('internal', `Acquiring lease ${key} failed; retrying`, { details: { key }, retryable: true, cause: error }));
        }
        await pause(clock, waitMs, signal);
      }
    } finally {
      acquiring = false;
    }
  }

  async function release(): Promise<boolean> {
    const current = holding;
    holding = undefined;
    return current === undefined ? false : await current.release();
  }

  return { key, ownerId, acquire, release };
}
