/**
 * What happens while a lease is held: renewal every `renewEveryMs` (compare-and-extend on the
 * holder's value), a local deadline one TTL after the last renewal that reached Redis, and the
 * fence's signal, aborted the moment either says the lease is gone.
 */
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { runScript } from '../../../src/runtime/redis/redis-script.ts';
import type { LeaseClock } from './lease-clock.ts';
import { holderValue, type FenceRef } from './lease-keys.ts';
import { RELEASE, RENEW } from './lease-scripts.ts';

/** One acquisition of a lease, handed to the code that runs while holding it. */
export interface Fence extends FenceRef {
  /**
   * Aborted when this acquisition ends: with a `lease.lost` {@link SwitchboardError} as reason
   * when a renewal finds the lease expired or taken, when no renewal reached Redis for a whole
   * TTL, or when the lease is released. Stop all work made on the lease's behalf when it aborts.
   */
  readonly signal: AbortSignal;
}

/** Settings shared by every acquisition of one lease. */
export interface HoldSettings {
  readonly redis: Redis;
  readonly key: string;
  readonly ownerId: string;
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly clock: LeaseClock;
  readonly onError: (error: SwitchboardError) => void;
}

/** A held acquisition. */
export interface Holding {
  readonly fence: Fence;
  /** Stops renewal, aborts the fence and deletes the lease key if it still holds this acquisition. */
  release(): Promise<boolean>;
}

/**
 * Starts holding acquisition `token`, whose `SET` was sent at `sentAt` (clock time): the lease
 * surely lives until `sentAt + ttlMs`, and each renewal that succeeds pushes that further.
 */
export function hold(settings: HoldSettings, token: number, sentAt: number): Holding {
  const { redis, key, ttlMs, clock } = settings;
  const value = holderValue(token, settings.ownerId);
  const controller = new AbortController();
  const details = { key, token, ownerId: settings.ownerId };
  let confirmedAt = sentAt;
  let renewing = false;
  let cancelTick = (): void => undefined;
  let cancelDeadline = (): void => undefined;
  const ended = (): boolean => controller.signal.aborted;

  const end = (message: string, retryable: boolean, cause?: unknown): void => {
    if (ended()) return;
    cancelTick();
    cancelDeadline();
    const options = { details, retryable, ...(cause === undefined ? {} : { cause }) };
    controller.abort(new SwitchboardError('lease.lost', message, options));
  };

  const armDeadline = (): void => {
    cancelDeadline();
    cancelDeadline = clock.schedule(() => {
      end(`Lease ${key} expired: no renewal reached Redis within ${ttlMs} ms`, true);
    }, confirmedAt + ttlMs - clock.now());
  };

  const renew = async (): Promise<void> => {
    if (renewing || ended()) return;
    renewing = true;
    const renewSentAt = clock.now();
    try {
      const extended = await runScript(redis, RENEW, [key], [value, ttlMs]);
      if (ended()) return;
      if (extended === 1) {
        confirmedAt = renewSentAt;
        armDeadline();
      } else {
        end(`Lease ${key} was lost: it expired or another holder took it`, true);
      }
    } catch (error) {
      const message = `Renewing lease ${key} failed; retrying until the lease expires`;
      settings.onError(new SwitchboardError('internal', message, { details, retryable: true, cause: error }));
    } finally {
      renewing = false;
    }
  };

  const scheduleTick = (): void => {
    cancelTick = clock.schedule(() => {
      scheduleTick();
      void renew();
    }, settings.renewEveryMs);
  };

  scheduleTick();
  armDeadline();

  return {
    fence: { leaseKey: key, token, signal: controller.signal },
    async release() {
      end(`Lease ${key} was released`, false);
      return (await runScript(redis, RELEASE, [key], [value])) === 1;
    },
  };
}
