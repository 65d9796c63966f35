/**
 * The log of deliveries that failed for good, for operators: newest first, capped, and expiring.
 * A sorted set `<prefix>:delivery-failures` (member sha256(idempotency key), score failure time)
 * indexes a hash `<prefix>:delivery-failures:data` of the records as JSON. One record per
 * idempotency key: recording the same key again replaces it. Each write trims the log to
 * `maxEntries` and to entries younger than `ttlMs`, and pushes the keys' expiry to `ttlMs`.
 *
 * Next to it, per session, the deliveries the person may not have received and has not been told
 * about yet: a hash `<prefix>:delivery-failures:untold:<session id>` (field sha256(idempotency key),
 * value the note as JSON), read and emptied by the session's next turn, expiring after `ttlMs`.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../src/runtime/redis/redis-script.ts';
import { CALL_RECORD_LUA } from './call-record.ts';
import { sha256Hex } from './job-ids.ts';
import type { DeliveryErrorSummary, DeliveryTrace, OutboundDelivery } from './outbound-types.ts';
import type { Destination } from '../src/runtime/injection.ts';
import { checkPrefix } from './redis-connections.ts';

/**
 * Why a delivery failed for good: `permanent` (the provider refused it), `exhausted` (every
 * attempt failed), `unconfirmed` (an earlier attempt may have sent it, so it was not sent again),
 * `stalled` (the worker running it stopped responding too often).
 */
export type DeliveryFailureReason = 'permanent' | 'exhausted' | 'unconfirmed' | 'stalled';

/** One delivery that failed for good. JSON-serialisable. */
export interface FailedDelivery extends DeliveryErrorSummary {
  /** ISO 8601 time of the final failure. */
  readonly failedAt: string;
  readonly channel: string;
  readonly destination: Destination;
  readonly idempotencyKey: string;
  readonly trace?: DeliveryTrace;
  /** Attempts made, the last one included. */
  readonly attempts: number;
  readonly reason: DeliveryFailureReason;
}

/** The failure record of `delivery`, failed for good at its `attempts`-th attempt for `reason`. */
export function failedDelivery(delivery: OutboundDelivery, summary: DeliveryErrorSummary, attempts: number, reason: DeliveryFailureReason): FailedDelivery {
  const { channel, destination, idempotencyKey, trace } = delivery;
  const record = { ...summary, failedAt: new Date().toISOString(), channel, destination, idempotencyKey, attempts, reason };
  return trace === undefined ? record : { ...record, trace };
}

/**
 * A delivery the person may never have received (an unknown outcome not sent again), kept so that
 * the session's next turn can tell them. JSON-serialisable.
 */
export interface UndeliveredNote {
  readonly sessionId: string;
  readonly idempotencyKey: string;
  readonly channel: string;
  /** ISO 8601 time it was given up. */
  readonly at: string;
  /** The start of the message, when its payload has text; at most {@link MAX_EXCERPT_CHARS} characters. */
  readonly excerpt?: string;
}

/** Longest {@link UndeliveredNote.excerpt}, in characters. */
export const MAX_EXCERPT_CHARS = 200;

/** Options of {@link createDeliveryFailures}. */
export interface DeliveryFailuresOptions {
  /** Client for the log's commands. Never closed here. */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** Most records kept; older ones are dropped on the next write. Default 1000. */
  readonly maxEntries?: number;
  /** How long a record is kept, in milliseconds. Default 1209600000 (14 days). */
  readonly ttlMs?: number;
}

/** The failed-delivery log; see {@link createDeliveryFailures}. */
export interface DeliveryFailures {
  /**
   * Records (or replaces) the final failure of `failure.idempotencyKey`; not when the key was
   * forgotten at or after `failure.failedAt` (the same record sent again once the delivery went out).
   */
  record(failure: FailedDelivery): Promise<void>;
  /**
   * Drops the record of `idempotencyKey`, e.g. after an operator's retry succeeded, and remembers
   * when (the latest `maxEntries` keys, for `ttlMs`).
   */
  forget(idempotencyKey: string): Promise<void>;
  /**
   * The records, newest first, optionally of one channel only.
   *
   * @param options.limit - Most records returned. Default 100.
   */
  list(options?: { readonly channel?: string; readonly limit?: number }): Promise<FailedDelivery[]>;
  /**
   * Keeps `note` for its session's next turn (one per idempotency key; expires after `ttlMs`); not
   * when a turn took that key's note at or after `note.at` (the person was told already).
   */
  noteForSession(note: UndeliveredNote): Promise<void>;
  /**
   * The notes kept for `sessionId`, oldest first, removed as they are read (once across readers;
   * a take sent again after its answer was lost gets them again). One script, also when there are
   * none: a turn asks only once its begin found some (`SessionStoreOptions.notesKey` with
   * {@link undeliveredNotesKey}).
   */
  takeForSession(sessionId: string): Promise<UndeliveredNote[]>;
}

/**
 * KEYS: index, data, forgotten. ARGV: member, the failure's time (ms), record JSON, maxEntries,
 * ttlMs. A record of a member forgotten at or after its failure's time is not kept: it is the same
 * record sent again after its answer was lost, once the delivery went out after all.
 */
const RECORD = defineScript(`
local forgotten = redis.call('ZSCORE', KEYS[3], ARGV[1])
if forgotten and tonumber(forgotten) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[5]))
local over = redis.call('ZRANGE', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
for _, list in ipairs({old, over}) do
  for _, member in ipairs(list) do
    redis.call('ZREM', KEYS[1], member)
    redis.call('HDEL', KEYS[2], member)
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
`);

/**
 * KEYS: index, data, forgotten. ARGV: member, now (ms), maxEntries, ttlMs. Drops the record and
 * remembers when (at most maxEntries members, for ttlMs).
 */
const FORGET = defineScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[4]))
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1
`);

/**
 * KEYS: one session's notes, and when each was taken. ARGV: field, note JSON, the note's time (ms),
 * ttlMs. A note taken at or after its own time is not kept again: it is the same note sent again
 * after its answer was lost, and the person was told already.
 */
const NOTE = defineScript(`
local taken = redis.call('HGET', KEYS[2], ARGV[1])
if taken and tonumber(taken) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);

/**
 * KEYS: one session's notes, when each was taken, and this take's own record. ARGV: now (ms),
 * ttlMs. Returns the notes' JSON and removes them, noting when each was taken. The same take sent
 * again (its answer lost) gets what its first run took (kept a minute, `call-record.ts`), so a
 * lost answer does not lose the notes.
 */
const TAKE_NOTES = defineScript(`${CALL_RECORD_LUA}
local previous = taken_before(KEYS[3])
if previous then return previous end
local all = redis.call('HGETALL', KEYS[1])
local notes = {}
if #all == 0 then return notes end
redis.call('DEL', KEYS[1])
for i = 1, #all, 2 do
  redis.call('HSET', KEYS[2], all[i], ARGV[1])
  notes[#notes + 1] = all[i + 1]
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
keep_taken(KEYS[3], notes, 60000)
return notes
`);

function parseNote(json: unknown): UndeliveredNote | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as UndeliveredNote) : undefined;
  } catch {
    return undefined;
  }
}

function parseRecord(json: string | null): FailedDelivery | undefined {
  if (json === null) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as FailedDelivery) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The hash of a session's notes not told yet (`<prefix>:delivery-failures:untold:<session id>`):
 * the session store's begin reports its length (`SessionStoreOptions.notesKey`).
 */
export function undeliveredNotesKey(prefix: string, sessionId: string): string {
  return `${failuresKey(prefix)}:untold:${sessionId}`;
}

/** The sorted set of the failed-delivery log, whose name starts every key of this module. */
function failuresKey(prefix: string): string {
  return `${prefix}:delivery-failures`;
}

/**
 * Creates the failed-delivery log on `options.redis`. The outbound workers write to it; the
 * operator page reads it.
 *
 * @example
 * const failures = createDeliveryFailures({ redis, prefix: 'sb' });
 * const recent = await failures.list({ channel: 'sms', limit: 20 });
 */
export function createDeliveryFailures(options: DeliveryFailuresOptions): DeliveryFailures {
  const { redis } = options;
  const prefix = checkPrefix(options.prefix);
  const maxEntries = Math.max(1, options.maxEntries ?? 1000);
  const ttlMs = options.ttlMs ?? 14 * 24 * 60 * 60 * 1000;
  const indexKey = failuresKey(prefix);
  const dataKey = `${indexKey}:data`;
  const forgottenKey = `${indexKey}:forgotten`;
  const notesKey = (sessionId: string): string => undeliveredNotesKey(prefix, sessionId);
  const takenKey = (sessionId: string): string => `${indexKey}:untold-taken:${sessionId}`;

  return {
    async record(failure) {
      const at = Date.parse(failure.failedAt);
      const now = Number.isNaN(at) ? Date.now() : at;
      const args = [sha256Hex(failure.idempotencyKey), now, JSON.stringify(failure), maxEntries, ttlMs];
      await runScript(redis, RECORD, [indexKey, dataKey, forgottenKey], args);
    },
    async forget(idempotencyKey) {
      await runScript(redis, FORGET, [indexKey, dataKey, forgottenKey], [sha256Hex(idempotencyKey), Date.now(), maxEntries, ttlMs]);
    },
    async list(query = {}) {
      const limit = Math.max(0, query.limit ?? 100);
      const members = await redis.zrevrange(indexKey, 0, maxEntries - 1);
      if (members.length === 0 || limit === 0) return [];
      const records = (await redis.hmget(dataKey, ...members)).map(parseRecord);
      return records
        .filter((record): record is FailedDelivery => record !== undefined)
        .filter((record) => query.channel === undefined || record.channel === query.channel)
        .slice(0, limit);
    },
    async noteForSession(note) {
      const at = Date.parse(note.at);
      const keys = [notesKey(note.sessionId), takenKey(note.sessionId)];
      await runScript(redis, NOTE, keys, [sha256Hex(note.idempotencyKey), JSON.stringify(note), Number.isNaN(at) ? Date.now() : at, ttlMs]);
    },
    async takeForSession(sessionId) {
      const keys = [notesKey(sessionId), takenKey(sessionId), `${indexKey}:untold-take:${randomUUID()}`];
      const reply = await runScript(redis, TAKE_NOTES, keys, [Date.now(), ttlMs]);
      const notes = (Array.isArray(reply) ? (reply as unknown[]) : []).map(parseNote);
      return notes.filter((note): note is UndeliveredNote => note !== undefined).toSorted((a, b) => a.at.localeCompare(b.at));
    },
  };
}
