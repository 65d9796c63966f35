import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../redis/redis-script.ts';
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
}

/** A turn to run: its record and every injection it has taken so far, in arrival order. */
export interface TurnInProgress {
  readonly record: TurnRecord;
  readonly inbox: readonly Injection[];
  /** True when the record was found in Redis (another worker's turn, resumed), false when new. */
  readonly resumed: boolean;
}

/**
 * A session's durable state in Redis: the mailbox of injections not yet taken by a turn, the
 * running turn, its inbox, and the conversation history.
 *
 * Keys (`<p>` the prefix, `<s>` the session id): `<p>:s:<s>:pending` (list), `<p>:s:<s>:inbox` (list),
 * `<p>:s:<s>:turn` (JSON), `<p>:s:<s>:history` (JSON), `<p>:inj:<injection id>` (de-duplication).
 */
export interface SessionStore {
  /** Puts an injection in the session's mailbox once; `false` when this id was seen before. */
  accept(sessionId: string, injection: Injection): Promise<boolean>;
  /**
   * The session's running turn (resumed), or a new one made by `create` from the oldest waiting
   * injection, or `undefined` when there is nothing to do.
   */
  beginTurn(sessionId: string, create: (first: Injection) => TurnRecord): Promise<TurnInProgress | undefined>;
  /** Moves every waiting injection into the running turn's inbox and returns the whole inbox. */
  steer(sessionId: string): Promise<Injection[]>;
  /** Saves the running turn's record. */
  saveTurn(record: TurnRecord): Promise<void>;
  /** Ends the turn: stores the new history and clears the turn and its inbox, atomically. */
  finishTurn(record: TurnRecord, history: readonly ModelMessage[]): Promise<void>;
  /** The conversation history before the running turn. */
  history(sessionId: string): Promise<ModelMessage[]>;
  /** The session's turn record (running, waiting or settling), or `undefined` when none. */
  currentTurn(sessionId: string): Promise<TurnRecord | undefined>;
  /** Sessions with a turn in progress (running, waiting or settling), at most `limit` (default 100). */
  activeTurns(limit?: number): Promise<TurnRecord[]>;
  /** How many injections wait for a turn. */
  pendingCount(sessionId: string): Promise<number>;
  /**
   * Whether a turn could run now: a turn left running (by a crashed worker) or settling, or
   * waiting injections while no turn waits for an approval or a peer.
   */
  hasWork(sessionId: string): Promise<boolean>;
}

const ACCEPT_SCRIPT = defineScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  return 1
end
return 0`);

/** A {@link SessionStore} in Redis. */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const dedupeTtl = options.dedupeTtlSeconds ?? 7 * 24 * 3600;
  const key = (sessionId: string, part: string): string => `${prefix}:s:${sessionId}:${part}`;
  const parseInjections = (raw: string[]): Injection[] => raw.map((item) => JSON.parse(item) as Injection);

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
      const [turnRaw, inboxRaw] = await Promise.all([
        redis.get(key(sessionId, 'turn')),
        redis.lrange(key(sessionId, 'inbox'), 0, -1),
      ]);
      if (turnRaw !== null) {
        return { record: JSON.parse(turnRaw) as TurnRecord, inbox: parseInjections(inboxRaw), resumed: true };
      }
      let inbox = parseInjections(inboxRaw);
      if (inbox.length === 0) {
        const moved = (await redis.lmove(key(sessionId, 'pending'), key(sessionId, 'inbox'), 'LEFT', 'RIGHT')) as string | null;
        if (moved === null) return undefined;
        inbox = parseInjections([moved]);
      }
      const first = inbox[0];
      if (first === undefined) return undefined;
      const record = create(first);
      await redis.set(key(sessionId, 'turn'), JSON.stringify(record));
      return { record, inbox, resumed: false };
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
      await redis
        .multi()
        .set(key(record.sessionId, 'history'), JSON.stringify(history))
        .del(key(record.sessionId, 'turn'))
        .del(key(record.sessionId, 'inbox'))
        .exec();
    },

    async history(sessionId) {
      const raw = await redis.get(key(sessionId, 'history'));
      return raw === null ? [] : (JSON.parse(raw) as ModelMessage[]);
    },

    async currentTurn(sessionId) {
      const raw = await redis.get(key(sessionId, 'turn'));
      return raw === null ? undefined : (JSON.parse(raw) as TurnRecord);
    },

    async activeTurns(limit = 100) {
      const found: TurnRecord[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:s:*:turn`, 'COUNT', 500);
        cursor = next;
        const values = keys.length === 0 ? [] : await redis.mget(...keys);
        for (const value of values) if (value !== null && found.length < limit) found.push(JSON.parse(value) as TurnRecord);
      } while (cursor !== '0' && found.length < limit);
      return found;
    },

    async pendingCount(sessionId) {
      return redis.llen(key(sessionId, 'pending'));
    },

    async hasWork(sessionId) {
      const [turnRaw, pending] = await Promise.all([redis.get(key(sessionId, 'turn')), redis.llen(key(sessionId, 'pending'))]);
      if (turnRaw === null) return pending > 0;
      const turn = JSON.parse(turnRaw) as TurnRecord;
      if (turn.status !== 'waiting') return true;
      // A wait with no approvals ends at its deadline; approvals are checked by their own store.
      return turn.pendingApprovals === undefined && turn.wait !== undefined && Date.now() >= Date.parse(turn.wait.until);
    },
  };
}
