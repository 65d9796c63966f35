/**
 * One holder per session, across every process: a Redis key `<prefix>:session-lock:<sessionId>`
 * set with `SET NX PX` to a random token. The lock is a short lease: while a process holds
 * sessions, one heartbeat per interval pushes the expiry of all of them forward in a single
 * command, each only while its key still holds our token; release deletes the key only while it
 * holds our token. A holder that dies stops beating, and its locks free themselves after at most
 * one TTL. A holder whose heartbeats stop reaching Redis gives its leases up on its own side a
 * little before Redis lets anyone else in; one whose event loop stalls for that long gives them up
 * as soon as its timers run again, and what it had already sent may still land.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../src/protocol/errors.ts';
import type { HeldLock } from '../src/runtime/session/held-lock.ts';
import { checkPrefix } from './redis-connections.ts';
import { defineScript, runScript } from '../src/runtime/redis/redis-script.ts';

/**
 * Takes KEYS[1] for token ARGV[1] with a lifetime of ARGV[2] ms if nobody else holds it: -1 when
 * taken, otherwise how many ms the current holder's lock still lives (0 when it has no expiry
 * left). With KEYS[2] (a watch set), a taking also adds member ARGV[4] to it with score ARGV[3]
 * (now, ms). A lock already holding ARGV[1] is taken again: the same claim sent a second time
 * (a client resends a command whose answer a broken connection lost) finds what it took itself.
 */
const ACQUIRE = defineScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') or redis.call('GET', KEYS[1]) == ARGV[1] then
  if #KEYS > 1 then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4]) end
  return -1
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then return 0 end
return left
`);

/**
 * Extends each KEYS[i] to ARGV[1] ms if it still holds token ARGV[i + 1]; one reply per key,
 * 1 if extended, 0 if the key expired or holds another token. All keys share the prefix's slot on
 * a cluster (the prefix is a hash tag there).
 */
const EXTEND_ALL = defineScript(`
local extended = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    extended[i] = redis.call('PEXPIRE', key, ARGV[1])
  else
    extended[i] = 0
  end
end
return extended
`);

/** Deletes KEYS[1] if it still holds token ARGV[1]; 1 if deleted. */
const RELEASE = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/**
 * Releases KEYS[1] if it still holds token ARGV[1], then looks at the session's work keys
 * (KEYS[3..]: its turn record, then lists: pending messages, the inbox). With none there, member
 * ARGV[2] leaves the watch set KEYS[2] (unless another holder has the lock). Answers
 * `{released, maybe work}`.
 */
const RELEASE_AND_LOOK = defineScript(`
local ours = redis.call('GET', KEYS[1]) == ARGV[1]
if ours then redis.call('DEL', KEYS[1]) end
local work = redis.call('EXISTS', KEYS[3]) == 1
for i = 4, #KEYS do work = work or redis.call('LLEN', KEYS[i]) > 0 end
if work then return { ours and 1 or 0, 1 } end
if ours or redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[2]) end
return { ours and 1 or 0, 0 }
`);

/** Default lifetime of a lock without a heartbeat, in ms. */
const DEFAULT_TTL_MS = 2_500;

/** Heartbeats per TTL by default: the lock survives four missed heartbeats in a row. */
const HEARTBEATS_PER_TTL = 5;

/**
 * How much earlier than Redis a holder gives a lease up, at most, in ms: covers the rounding of
 * timers (a timer may fire a millisecond after its time) so that it never gives up later than Redis.
 */
const GIVE_UP_EARLY_MS = 20;

/** Options of {@link createSessionLock}. */
export interface SessionLockOptions {
  /** Client for the lock commands. Never closed by the lock. Use a worker connection. */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /**
   * How long a lock lives without a heartbeat, in milliseconds: how soon the sessions of a holder
   * that died are free again (at most this long after it died), and how long an event-loop stall
   * or a Redis outage the holder survives (this TTL minus one heartbeat interval). Default 2500.
   */
  readonly ttlMs?: number;
  /**
   * Time between heartbeats, in milliseconds. One heartbeat is one Redis command that extends
   * every lock this instance holds, so the cost is `1000 / heartbeatIntervalMs` commands a second
   * per instance (per worker process) while it holds any lock, whatever their number, and none
   * while it holds none. Default `ttlMs / 5` (500 ms: 2 commands a second).
   */
  readonly heartbeatIntervalMs?: number;
}

/** A held session lock. */
export interface SessionLease {
  readonly sessionId: string;
  /** The random token stored in the lock key. */
  readonly token: string;
  /**
   * Aborted, with a `session.lock_lost` {@link SwitchboardError} as reason, when a heartbeat finds
   * the lock gone or held by someone else, or once no heartbeat has reached Redis for a whole TTL
   * (measured from when the last successful one was sent, so no later than Redis itself could
   * let another holder in, as long as this process's event loop runs). Not aborted by
   * {@link SessionLease.release}.
   */
  readonly signal: AbortSignal;
  /**
   * Stops renewing the lock and deletes it if it still holds this lease's token.
   * Resolves `true` when the lock was deleted, `false` when it was no longer ours.
   */
  release(): Promise<boolean>;
  /**
   * {@link SessionLease.release}, and in the same command a look at the session's work: when its
   * turn record (`look.workKeys[0]`) is absent and its lists (the rest) are empty, the session
   * leaves the watch set `look.watchKey` too (see `inline-turns.ts`). `maybeWork` says whether
   * anything was there, for the caller to look closer.
   */
  releaseAndLook(look: ReleaseLook): Promise<{ readonly released: boolean; readonly maybeWork: boolean }>;
  /**
   * The lease as a script of another module sees it (`HeldLock`): the lock's key and token, and
   * `letGo()`, which that script's caller calls once it deleted the lock (the session had nothing
   * left). The lease then stops renewing it, and {@link SessionLease.release} and
   * {@link SessionLease.releaseAndLook} answer at once (released, no work) without Redis.
   */
  heldLock(watchKey?: string): HeldLock;
}

/** What {@link SessionLease.releaseAndLook} looks at. */
export interface ReleaseLook {
  readonly watchKey: string;
  /** The session's turn record key, then the keys of its lists of waiting work. */
  readonly workKeys: readonly [string, ...string[]];
}

/** What {@link SessionLock.claim} found: the lease, or how long the current holder's lock still lives. */
export type SessionClaim =
  | { readonly lease: SessionLease; readonly heldForMs?: undefined }
  | { readonly lease?: undefined; readonly heldForMs: number };

/** Options of one {@link SessionLock.claim}. */
export interface ClaimOptions {
  /**
   * A sorted set that records the taking: the session id is added with the time of the claim (ms
   * since the epoch) as its score, in the same command. Whoever runs work that no queue job backs
   * keeps it there, so a sweeper can tell work whose holder died (see `inline-turns.ts`).
   */
  readonly watchKey?: string;
  /**
   * The client that sends this claim, default the lock's own. A caller that answers a request
   * meanwhile passes a fail-fast one, so that a Redis outage fails the claim instead of holding
   * it until Redis is back; the lease's heartbeat and release still go through the lock's client.
   */
  readonly via?: Redis;
  /**
   * Called once the claim was sent, before its answer, with the lock's key and the token it will
   * hold if the claim takes it: a command sent now on the same connection runs right after the
   * claim, so it can check for itself that the lock holds the token (the claim's outcome) and
   * act at once, a round trip earlier than if it waited for the answer. It must not throw (what it
   * sends reports its own failure).
   */
  readonly behind?: (lock: ClaimedLock) => void;
}

/** A lock a claim asks for: its Redis key and the random token it holds once taken. */
export interface ClaimedLock {
  readonly key: string;
  readonly token: string;
}

/** Session locks; see {@link createSessionLock}. */
export interface SessionLock {
  /** Takes the lock of `sessionId` if nobody holds it; `undefined` when it is held. One Redis command. */
  tryAcquire(sessionId: string): Promise<SessionLease | undefined>;
  /**
   * Takes the lock of `sessionId` if nobody holds it; when someone does, says how long their lock
   * still lives without another heartbeat, in ms (a holder that died frees it then). One Redis
   * command either way.
   */
  claim(sessionId: string, options?: ClaimOptions): Promise<SessionClaim>;
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

/** A lease this instance holds and renews. */
interface Held {
  readonly sessionId: string;
  readonly key: string;
  readonly token: string;
  readonly controller: AbortController;
  /** Fires when the lock may have expired in Redis: no heartbeat confirmed within one TTL. */
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Creates session locks on `options.redis`. The heartbeat is shared by every lease of the
 * instance, so create one per process (per worker) and take all its leases from it.
 *
 * @example
 * const locks = createSessionLock({ redis, prefix: 'sb' });
 * const lease = await locks.tryAcquire('session-42');
 * if (lease) {
 *   try { await runTurn({ signal: lease.signal }); } finally { await lease.release(); }
 * }
 */
export function createSessionLock(options: SessionLockOptions): SessionLock {
  const { redis } = options;
  const prefix = checkPrefix(options.prefix);
  const ttlMs = positive('ttlMs', options.ttlMs ?? DEFAULT_TTL_MS);
  const intervalMs = positive('heartbeatIntervalMs', options.heartbeatIntervalMs ?? Math.max(1, Math.floor(ttlMs / HEARTBEATS_PER_TTL)));
  /** The leases being renewed, by token. */
  const held = new Map<string, Held>();
  let timer: NodeJS.Timeout | undefined;
  let beating = false;
  /** Why the last heartbeat failed, for the reason of a lease that then expires. */
  let lastFailure: unknown;

  const lose = (lease: Held, message: string, cause?: unknown): void => {
    if (held.get(lease.token) !== lease) return;
    forget(lease);
    lease.controller.abort(
      new SwitchboardError('session.lock_lost', message, {
        details: { sessionId: lease.sessionId },
        retryable: true,
        ...(cause === undefined ? {} : { cause }),
      }),
    );
  };

  /**
   * (Re)arms the lease's expiry: a little before `ttlMs` after `confirmedAt` (a `performance.now()`
   * time at which a command that set the expiry was sent, so before Redis ran it).
   */
  const giveUpAfterMs = ttlMs - Math.min(GIVE_UP_EARLY_MS, ttlMs / 10);
  const arm = (lease: Held, confirmedAt: number): void => {
    clearTimeout(lease.expiry);
    lease.expiry = setTimeout(() => {
      lose(lease, `Session lock of ${lease.sessionId} expired: no heartbeat reached Redis within ${ttlMs} ms`, lastFailure);
    }, Math.max(0, confirmedAt + giveUpAfterMs - performance.now()));
    lease.expiry.unref();
  };

  const forget = (lease: Held): void => {
    clearTimeout(lease.expiry);
    held.delete(lease.token);
    if (held.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const beat = async (): Promise<void> => {
    if (beating || held.size === 0) return;
    beating = true;
    const batch = [...held.values()];
    const sentAt = performance.now();
    try {
      const replies = (await runScript(redis, EXTEND_ALL, batch.map((lease) => lease.key), [ttlMs, ...batch.map((lease) => lease.token)])) as number[];
      lastFailure = undefined;
      batch.forEach((lease, index) => {
        if (held.get(lease.token) !== lease) return;
        if (replies[index] === 1) arm(lease, sentAt);
        else lose(lease, `Session lock of ${lease.sessionId} was lost: it expired or another holder took it`);
      });
    } catch (error) {
      // Each lease's expiry gives it up once no heartbeat has reached Redis for a whole TTL.
      lastFailure = error;
    } finally {
      beating = false;
    }
  };

  const hold = (sessionId: string, key: string, token: string, requestedAt: number): SessionLease => {
    const controller = new AbortController();
    // The lock surely lives until (the moment its SET was sent) + ttlMs.
    const lease: Held = { sessionId, key, token, controller, expiry: undefined };
    arm(lease, requestedAt);
    held.set(token, lease);
    if (timer === undefined) {
      timer = setInterval(() => {
        void beat();
      }, intervalMs);
      timer.unref();
    }
    /** Set once a script of the turn let the lock go: nothing is left to release. */
    let letGo = false;
    return {
      sessionId,
      token,
      signal: controller.signal,
      async release(): Promise<boolean> {
        if (held.get(token) === lease) forget(lease);
        if (letGo) return true;
        const deleted = await runScript(redis, RELEASE, [key], [token]);
        return deleted === 1;
      },
      async releaseAndLook(look) {
        if (held.get(token) === lease) forget(lease);
        if (letGo) return { released: true, maybeWork: false };
        const [released, work] = (await runScript(redis, RELEASE_AND_LOOK, [key, look.watchKey, ...look.workKeys], [token, sessionId])) as [number, number];
        return { released: released === 1, maybeWork: work === 1 };
      },
      heldLock: (watchKey) => ({
        key,
        token,
        ...(watchKey === undefined ? {} : { watchKey }),
        letGo() {
          letGo = true;
          if (held.get(token) === lease) forget(lease);
        },
      }),
    };
  };

  const claim = async (sessionId: string, claimOptions: ClaimOptions = {}): Promise<SessionClaim> => {
    const key = sessionLockKey(prefix, sessionId);
    const token = randomUUID();
    const requestedAt = performance.now();
    const watch = claimOptions.watchKey;
    const keys = watch === undefined ? [key] : [key, watch];
    const args = watch === undefined ? [token, ttlMs] : [token, ttlMs, Date.now(), sessionId];
    const claimed = runScript(claimOptions.via ?? redis, ACQUIRE, keys, args);
    claimOptions.behind?.({ key, token });
    const left = Number(await claimed);
    if (left >= 0) return { heldForMs: left };
    return { lease: hold(sessionId, key, token, requestedAt) };
  };

  return {
    claim,
    async tryAcquire(sessionId) {
      return (await claim(sessionId)).lease;
    },
  };
}
