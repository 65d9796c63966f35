/**
 * One holder per session, across every process: a Redis key `<prefix>:session-lock:<sessionId>`
 * set with `SET NX PX` to a random token. While held, a heartbeat pushes the expiry forward every
 * third of the TTL, but only while the key still holds our token; release deletes the key only
 * while it holds our token. A holder that dies stops beating, and the lock frees itself after at
 * most one TTL.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { checkPrefix } from './redis-connections.ts';
import { defineScript, runScript } from '../src/runtime/redis/redis-script.ts';

/** Extends the expiry of KEYS[1] to ARGV[2] ms if it still holds token ARGV[1]; 1 if extended. */
const EXTEND = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`);

/** Deletes KEYS[1] if it still holds token ARGV[1]; 1 if deleted. */
const RELEASE = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/** Options of {@link createSessionLock}. */
export interface SessionLockOptions {
  /** Client for the lock commands. Never closed by the lock. Use a worker connection. */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** How long a lock lives without a heartbeat, in milliseconds. Default 30000. */
  readonly ttlMs?: number;
  /** Time between heartbeats, in milliseconds. Default `ttlMs / 3`. */
  readonly heartbeatIntervalMs?: number;
}

/** A held session lock. */
export interface SessionLease {
  readonly sessionId: string;
  /** The random token stored in the lock key. */
  readonly token: string;
  /**
   * Aborted, with a `session.lock_lost` {@link SwitchboardError} as reason, when a heartbeat finds
   * the lock gone or held by someone else, or when no heartbeat has reached Redis for a whole TTL.
   * Not aborted by {@link SessionLease.release}.
   */
  readonly signal: AbortSignal;
  /**
   * Stops the heartbeat and deletes the lock if it still holds this lease's token.
   * Resolves `true` when the lock was deleted, `false` when it was no longer ours.
   */
  release(): Promise<boolean>;
}

/** Session locks; see {@link createSessionLock}. */
export interface SessionLock {
  /** Takes the lock of `sessionId` if nobody holds it; `undefined` when it is held. */
  tryAcquire(sessionId: string): Promise<SessionLease | undefined>;
}

/** The Redis key of the lock of `sessionId`. */
export function sessionLockKey(prefix: string, sessionId: string): string {
  return `${prefix}:session-lock:${sessionId}`;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new SwitchboardError('config.invalid', `${name} must be a positive number of milliseconds`, {
      details: { [name]: value },
    });
  }
  return value;
}

/**
 * Creates session locks on `options.redis`.
 *
 * @example
 * const locks = createSessionLock({ redis, prefix: 'sb', ttlMs: 30_000 });
 * const lease = await locks.tryAcquire('session-42');
 * if (lease) {
 *   try { await runTurn({ signal: lease.signal }); } finally { await lease.release(); }
 * }
 */
export function createSessionLock(options: SessionLockOptions): SessionLock {
  const { redis } = options;
  const prefix = checkPrefix(options.prefix);
  const ttlMs = positive('ttlMs', options.ttlMs ?? 30_000);
  const intervalMs = positive('heartbeatIntervalMs', options.heartbeatIntervalMs ?? Math.max(1, Math.floor(ttlMs / 3)));

  async function tryAcquire(sessionId: string): Promise<SessionLease | undefined> {
    const key = sessionLockKey(prefix, sessionId);
    const token = randomUUID();
    const requestedAt = Date.now();
    const set = await redis.set(key, token, 'PX', ttlMs, 'NX');
    if (set !== 'OK') return undefined;
    return startLease(sessionId, key, token, requestedAt);
  }

  function startLease(sessionId: string, key: string, token: string, requestedAt: number): SessionLease {
    const controller = new AbortController();
    // The lock surely lives until (the moment its last successful SET/PEXPIRE was sent) + ttlMs.
    let confirmedAt = requestedAt;
    let beating = false;
    let stopped = false;

    const lose = (message: string, cause?: unknown): void => {
      if (stopped || controller.signal.aborted) return;
      clearInterval(timer);
      controller.abort(
        new SwitchboardError('session.lock_lost', message, {
          details: { sessionId },
          retryable: true,
          ...(cause === undefined ? {} : { cause }),
        }),
      );
    };

    const beat = async (): Promise<void> => {
      if (stopped || controller.signal.aborted) return;
      if (Date.now() - confirmedAt >= ttlMs) {
        lose(`Session lock of ${sessionId} expired: no heartbeat reached Redis within ${ttlMs} ms`);
        return;
      }
      if (beating) return;
      beating = true;
      const sentAt = Date.now();
      try {
        const extended = await runScript(redis, EXTEND, [key], [token, ttlMs]);
        if (extended === 1) confirmedAt = sentAt;
        else lose(`Session lock of ${sessionId} was lost: it expired or another holder took it`);
      } catch (error) {
        if (Date.now() - confirmedAt >= ttlMs) {
          lose(`Session lock of ${sessionId} expired: the heartbeat could not reach Redis`, error);
        }
      } finally {
        beating = false;
      }
    };

    const timer = setInterval(() => {
      void beat();
    }, intervalMs);
    timer.unref();

    return {
      sessionId,
      token,
      signal: controller.signal,
      async release(): Promise<boolean> {
        if (!stopped) {
          stopped = true;
          clearInterval(timer);
        }
        const deleted = await runScript(redis, RELEASE, [key], [token]);
        return deleted === 1;
      },
    };
  }

  return { tryAcquire };
}
