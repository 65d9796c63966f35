import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../redis/redis-script.ts';
import { scanKeys } from '../redis/redis-client.ts';
import type { Injection } from '../injection.ts';
import type { ModelMessage } from '../model/model-types.ts';
import type { TurnRecord } from './turn-record.ts';

/** Options of {@link createSessionStore}. */
export interface SessionStoreOptions {
  /** A connection the caller owns (and closes). */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** How long an injection id is remembered for de-duplication, in seconds. Default 7 days. */
  readonly dedupeTtlSeconds?: number;
  /**
   * How long the conversation history of a session with no new turn is kept, in seconds; each
   * finished turn starts the time again. Default 90 days.
   */
  readonly historyTtlSeconds?: number;
  /**
   * How many sessions' histories this process keeps parsed after writing them, so that the next
   * turn of the session here neither reads nor parses it again (a version check in Redis tells
   * whether another process wrote a newer one). Default 1000; 0 keeps none.
   */
  readonly historyCacheSize?: number;
}

/** A turn to run: its record and every injection it has taken so far, in arrival order. */
export interface TurnInProgress {
  readonly record: TurnRecord;
  readonly inbox: readonly Injection[];
  /** The conversation history before the turn, read with it. */
  readonly history: readonly ModelMessage[];
  /** How long the history's JSON is, in characters (a measure of its size without serialising it again). */
  readonly historyChars: number;
  /** True when the record was found in Redis (another worker's turn, resumed), false when new. */
  readonly resumed: boolean;
}

/**
 * A session's durable state in Redis: the mailbox of injections not yet taken by a turn, the
 * running turn, its inbox, and the conversation history.
 *
 * Keys (`<p>` the prefix, `<s>` the session id) and what bounds each: `<p>:s:<s>:pending` (list;
 * emptied by the next turn), `<p>:s:<s>:inbox` (list) and `<p>:s:<s>:turn` (JSON) (both deleted
 * when the turn finishes), `<p>:s:<s>:history` (`<turn id>\n<JSON>`, trimmed to the actor's token
 * budget by the runner, expires `historyTtlSeconds` after the last turn), `<p>:inj:<injection id>`
 * (de-duplication, expires after `dedupeTtlSeconds`).
 */
export interface SessionStore {
  /** Puts an injection in the session's mailbox once; `false` when this id was seen before. */
  accept(sessionId: string, injection: Injection): Promise<boolean>;
  /**
   * The session's running turn (resumed), or a new one made by `create` from the oldest waiting
   * injection, or `undefined` when there is nothing to do; with the history, in two round trips at
   * most (one read script, then the new record's save).
   */
  beginTurn(sessionId: string, create: (first: Injection) => TurnRecord): Promise<TurnInProgress | undefined>;
  /** Moves every waiting injection into the running turn's inbox and returns the whole inbox. */
  steer(sessionId: string): Promise<Injection[]>;
  /** Saves the running turn's record. */
  saveTurn(record: TurnRecord): Promise<void>;
  /**
   * Ends the turn: stores the new history and clears the turn and its inbox, atomically. Resolves
   * to how many injections wait in the mailbox for the next turn.
   */
  finishTurn(record: TurnRecord, history: readonly ModelMessage[]): Promise<number>;
  /** Sessions with a turn in progress (running, waiting or settling), at most `limit` (default 100). */
  activeTurns(limit?: number): Promise<TurnRecord[]>;
  /** How many injections wait for a turn. */
  pendingCount(sessionId: string): Promise<number>;
  /**
   * Whether a turn could run now: a turn left running (by a crashed worker) or settling, a wait
   * whose deadline passed, `approvalsReady` answering true for a turn waiting for approvals, or
   * waiting injections while no turn waits. One round trip unless `approvalsReady` is asked.
   */
  hasWork(sessionId: string, approvalsReady?: (pending: NonNullable<TurnRecord['pendingApprovals']>) => Promise<boolean>): Promise<boolean>;
}

/**
 * Reads what a turn starts from: the running turn, its inbox (the oldest waiting injection moved in
 * when there is no turn and no inbox) and the history. `false` when there is nothing to do.
 */
const BEGIN_SCRIPT = defineScript(`
local turn = redis.call('GET', KEYS[1])
local inbox = redis.call('LRANGE', KEYS[2], 0, -1)
if not turn and #inbox == 0 then
  local moved = redis.call('LMOVE', KEYS[3], KEYS[2], 'LEFT', 'RIGHT')
  if not moved then return false end
  inbox = { moved }
end
if ARGV[1] ~= '' and redis.call('GETRANGE', KEYS[4], 0, #ARGV[1]) == ARGV[1] .. '\\n' then
  return { turn or '', inbox, '', 1 }
end
return { turn or '', inbox, redis.call('GET', KEYS[4]) or '', 0 }`);

/** Stores the history with its idle expiry, drops the turn and its inbox, answers the mailbox length. */
const FINISH_SCRIPT = defineScript(`
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('DEL', KEYS[2], KEYS[3])
return redis.call('LLEN', KEYS[4])`);

const ACCEPT_SCRIPT = defineScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  return 1
end
return 0`);

/** A history as stored: `<version>\n<JSON>` (the version is the id of the turn that wrote it), or bare JSON as earlier versions wrote it. */
function decodeHistory(raw: string): { readonly version: string; readonly json: string } {
  if (raw.startsWith('[')) return { version: '', json: raw };
  const newline = raw.indexOf('\n');
  return { version: raw.slice(0, newline), json: raw.slice(newline + 1) };
}

/** A parsed history this process wrote, with its version and JSON length. */
interface KnownHistory {
  readonly version: string;
  readonly messages: readonly ModelMessage[];
  readonly chars: number;
}

/** A small least-recently-used map of the histories this process wrote last. */
function historyCache(size: number): { get(sessionId: string): KnownHistory | undefined; set(sessionId: string, known: KnownHistory): void } {
  const entries = new Map<string, KnownHistory>();
  return {
    get(sessionId) {
      const known = entries.get(sessionId);
      if (known !== undefined) {
        entries.delete(sessionId);
        entries.set(sessionId, known);
      }
      return known;
    },
    set(sessionId, known) {
      if (size <= 0) return;
      entries.delete(sessionId);
      entries.set(sessionId, known);
      if (entries.size > size) entries.delete(entries.keys().next().value ?? '');
    },
  };
}

/** A {@link SessionStore} in Redis. */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const dedupeTtl = options.dedupeTtlSeconds ?? 7 * 24 * 3600;
  const historyTtl = options.historyTtlSeconds ?? 90 * 24 * 3600;
  const key = (sessionId: string, part: string): string => `${prefix}:s:${sessionId}:${part}`;
  const parseInjections = (raw: string[]): Injection[] => raw.map((item) => JSON.parse(item) as Injection);
  const known = historyCache(options.historyCacheSize ?? 1000);

  return {
    async accept(sessionId, injection) {
      const added = await runScript(
        redis,
        ACCEPT_SCRIPT,
        [`${prefix}:inj:${injection.id}`, key(sessionId, 'pending')],
        [JSON.stringify(injection), String(dedupeTtl)],
      );
      return added === 1;
    },

    async beginTurn(sessionId, create) {
      const keys = ['turn', 'inbox', 'pending', 'history'].map((part) => key(sessionId, part));
      const cached = known.get(sessionId);
      const reply = (await runScript(redis, BEGIN_SCRIPT, keys, [cached?.version ?? ''])) as [string, string[], string, number] | null;
      if (reply === null) return undefined;
      const [turnRaw, inboxRaw, historyRaw, upToDate] = reply;
      const inbox = parseInjections(inboxRaw);
      const stored = decodeHistory(historyRaw);
      const history = upToDate === 1 && cached !== undefined ? cached.messages : stored.json === '' ? [] : (JSON.parse(stored.json) as ModelMessage[]);
      const historyChars = upToDate === 1 && cached !== undefined ? cached.chars : stored.json === '' ? 2 : stored.json.length;
      if (turnRaw !== '') return { record: JSON.parse(turnRaw) as TurnRecord, inbox, history, historyChars, resumed: true };
      const first = inbox[0];
      if (first === undefined) return undefined;
      const record = create(first);
      await redis.set(key(sessionId, 'turn'), JSON.stringify(record));
      return { record, inbox, history, historyChars, resumed: false };
    },

    async steer(sessionId) {
      const pending = key(sessionId, 'pending');
      const inbox = key(sessionId, 'inbox');
      while (((await redis.lmove(pending, inbox, 'LEFT', 'RIGHT')) as string | null) !== null) {
        // moved one; loop until the mailbox is empty
      }
      return parseInjections(await redis.lrange(inbox, 0, -1));
    },

    async saveTurn(record) {
      await redis.set(key(record.sessionId, 'turn'), JSON.stringify(record));
    },

    async finishTurn(record, history) {
      const keys = ['history', 'turn', 'inbox', 'pending'].map((part) => key(record.sessionId, part));
      const json = JSON.stringify(history);
      const waiting = Number(await runScript(redis, FINISH_SCRIPT, keys, [`${record.turnId}\n${json}`, String(historyTtl)]));
      known.set(record.sessionId, { version: record.turnId, messages: history, chars: json.length });
      return waiting;
    },

    async activeTurns(limit = 100) {
      const found: TurnRecord[] = [];
      // scanKeys visits every master of a cluster; the keys of one batch share the prefix's slot.
      for await (const keys of scanKeys(redis, `${prefix}:s:*:turn`)) {
        for (const value of await redis.mget(...keys)) if (value !== null && found.length < limit) found.push(JSON.parse(value) as TurnRecord);
        if (found.length >= limit) break;
      }
      return found;
    },

    async pendingCount(sessionId) {
      return redis.llen(key(sessionId, 'pending'));
    },

    async hasWork(sessionId, approvalsReady) {
      const [turnRaw, pending] = await Promise.all([redis.get(key(sessionId, 'turn')), redis.llen(key(sessionId, 'pending'))]);
      if (turnRaw === null) return pending > 0;
      const turn = JSON.parse(turnRaw) as TurnRecord;
      if (turn.status !== 'waiting') return true;
      // A wait with no approvals ends at its deadline; approvals are checked by their own store.
      if (turn.pendingApprovals !== undefined) return approvalsReady === undefined ? false : approvalsReady(turn.pendingApprovals);
      return turn.wait !== undefined && Date.now() >= Date.parse(turn.wait.until);
    },
  };
}
