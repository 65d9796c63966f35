import type { Redis } from 'ioredis';
import { recentMap } from '../memo/recent-map.ts';
import { defineScript, runScript, type RedisScript } from '../redis/redis-script.ts';
import { scanKeys } from '../redis/redis-client.ts';
import type { Injection } from '../injection.ts';
import type { ModelMessage } from '../model/model-types.ts';
import { CONVERSATION_SETTLED_LUA, CONVERSATION_STARTED_LUA } from '../inspect/conversation-index-lua.ts';
import { conversationIndexLayout, settlementArgument, type ConversationIndexLayout, type ConversationSettlement } from '../inspect/conversation-index-layout.ts';
import { acceptedInjections } from './accepted-injections.ts';
import type { StreamWrite } from './event-log.ts';
import { historyChange, listChars, wholeHistory, type HistoryChange, type KnownHistory } from './history-list.ts';
import type { HeldLock } from './held-lock.ts';
import type { TurnRecord } from './turn-record.ts';

/** What else a {@link SessionStore.finishTurn} does. */
export interface FinishOptions {
  /**
   * The turn's last event-log write (its settlement's entries and `turn_settled`), made by the
   * finish in the same script as the clearing: both happen or neither, so a settled turn always
   * has its `turn_settled`. `written` is called with the entry's id once the finish succeeded.
   * The log must be on the store's Redis (on a cluster, in the prefix's slot).
   */
  readonly logWrite?: StreamWrite;
  /**
   * The session's lock, held by this process: a finish that leaves the mailbox empty also lets it
   * go, and the session leave the lock's watch set, when the lock still holds its token
   * (`lock.letGo()` is then called).
   */
  readonly lock?: HeldLock;
}

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
   * How many sessions' histories this process keeps parsed after reading or writing them, so that
   * the next turn of the session here neither reads nor parses it again (a version check in Redis
   * tells whether another process wrote a newer one) and stores only what it changed. Default 1000;
   * 0 keeps none (every turn then reads the history and writes it whole).
   */
  readonly historyCacheSize?: number;
  /**
   * The conversation index the begin and finish scripts keep (`src/runtime/inspect/`): a new
   * turn's start and each settlement are recorded in the scripts that already run then. Default
   * `conversationIndexLayout(prefix)`; `false` keeps none.
   */
  readonly conversations?: ConversationIndexLayout | false;
  /**
   * The key of a hash per session whose length a turn's begin reports in the same script
   * ({@link TurnInProgress.notesWaiting}): the notes of answers earlier turns failed to deliver,
   * so a turn with none to tell spends no command of its own to find out. Default: none (the
   * begin reports nothing).
   */
  readonly notesKey?: (sessionId: string) => string;
  /**
   * Whether this process begins turns (a worker role): it then remembers the messages it accepts
   * (at most 32 for each of 1000 sessions) until a begin moves them, so that a begin saves the
   * new turn's record in its own script ({@link SessionStore.beginTurn}). Default true; a
   * process that only takes messages in gives false, and remembers nothing.
   */
  readonly beginsTurns?: boolean;
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
  /**
   * A new turn's first write of its record: sent, not waited for, so it leaves with the turn's
   * next command. The caller awaits it before the turn does anything another worker could resume
   * from (its first model call); it rejects as the write did.
   */
  readonly saved?: Promise<void>;
  /**
   * Whether the session's notes hash ({@link SessionStoreOptions.notesKey}) had entries when the
   * turn began; absent when the store has no notes key.
   */
  readonly notesWaiting?: boolean;
}

/**
 * What a guarded accept looks at first, as the sender store keeps it: the sender's field in the
 * channel's hash of blocked senders, and the sender's list of held messages.
 */
export interface AcceptGuard {
  readonly blockedKey: string;
  readonly blockedField: string;
  readonly heldKey: string;
}

/**
 * What {@link SessionStore.acceptUnless} did: stored the injection, found its id seen before, or
 * stored nothing because the guard's sender is blocked or has messages held.
 */
export type GuardedAccept = 'accepted' | 'duplicate' | 'guarded';

/**
 * What must still hold for an accept to store anything: a key that must exist, such as the record
 * of the sign-in session a message came in on. The accept renews the key's expiry to `ttlMs` (ms)
 * in its own script, as a read of that session would.
 */
export interface AcceptCondition {
  readonly key: string;
  readonly ttlMs: number;
}

/** What {@link SessionStore.acceptWhile} did: as {@link GuardedAccept}, or `lapsed` when its condition's key was gone. */
export type ConditionalAccept = GuardedAccept | 'lapsed';

/**
 * A session's durable state in Redis: the mailbox of injections not yet taken by a turn, the
 * running turn, its inbox, and the conversation history.
 *
 * Keys (`<p>` the prefix, `<s>` the session id) and what bounds each: `<p>:s:<s>:pending` (list;
 * emptied by the next turn), `<p>:s:<s>:inbox` (list) and `<p>:s:<s>:turn` (JSON) (both deleted
 * when the turn finishes), `<p>:s:<s>:hist` (list, one message's JSON each: a turn appends what it
 * added and drops from the front what the runner trimmed to the actor's token budget) with
 * `<p>:s:<s>:histv` (the id of the turn that wrote it), both expiring `historyTtlSeconds` after the
 * last turn; `<p>:s:<s>:history` is the single-string form earlier versions wrote, read once and
 * replaced; `<p>:inj:<injection id>` (de-duplication, expires after `dedupeTtlSeconds`); and the
 * conversation index's `<p>:conv:idx` and `<p>:conv:sum`, shared by every session (bounded as
 * `src/runtime/inspect/conversation-index-layout.ts` says).
 */
export interface SessionStore {
  /** Puts an injection in the session's mailbox once; `false` when this id was seen before. */
  accept(sessionId: string, injection: Injection): Promise<boolean>;
  /**
   * {@link accept}, in the same script as the reads that tell whether its sender may write
   * without being asked about (`guard`): a blocked sender, or one with messages held, gets
   * `guarded` and nothing is stored.
   */
  acceptUnless(sessionId: string, injection: Injection, guard: AcceptGuard): Promise<GuardedAccept>;
  /**
   * {@link acceptUnless} with `guard`, else {@link accept}, only while `condition` holds: its key is
   * looked at, and its expiry renewed, first in the same script. `lapsed`, with nothing stored, when
   * the key is gone.
   */
  acceptWhile(sessionId: string, injection: Injection, condition: AcceptCondition, guard?: AcceptGuard): Promise<ConditionalAccept>;
  /** Renews `condition`'s key's expiry; `false` when the key is gone. */
  renew(condition: AcceptCondition): Promise<boolean>;
  /**
   * The session's running turn (resumed), or a new one made by `create` from the oldest waiting
   * injection, or `undefined` when there is nothing to do; with the history, in two round trips at
   * most (one read script, then the new record's save). A new turn is recorded in the
   * conversation index as started at `at` (ms since the epoch; default now). With `lock`, the
   * script first checks that the session's lock holds the token, and does nothing (`undefined`)
   * when it does not: a begin sent right behind the lock's claim, before its answer. When the
   * oldest waiting injection is one this store accepted (its messages are begun in order), the
   * new turn's record is made from it first and saved in the begin's own script: one round trip,
   * and no `saved`.
   */
  beginTurn(sessionId: string, create: (first: Injection) => TurnRecord, at?: number, lock?: Pick<HeldLock, 'key' | 'token'>): Promise<TurnInProgress | undefined>;
  /** Moves every waiting injection into the running turn's inbox and returns the whole inbox. */
  steer(sessionId: string): Promise<Injection[]>;
  /**
   * Saves the running turn's record; with `logWrite` (a buffered log's entries, `BufferedEventLog.flushWith`),
   * adds them to the session's log in the same script: both or neither, in one command.
   */
  saveTurn(record: TurnRecord, logWrite?: StreamWrite): Promise<void>;
  /**
   * Ends the turn: stores the new history (only the change from the history the turn began with,
   * when this process still holds that one) and clears the turn and its inbox, atomically, adding
   * `conversation` (when given) to the conversation index in the same script. Resolves to how
   * many injections wait in the mailbox for the next turn; see {@link FinishOptions} for the
   * rest.
   */
  finishTurn(record: TurnRecord, history: readonly ModelMessage[], conversation?: ConversationSettlement, options?: FinishOptions): Promise<number>;
  /** Sessions with a turn in progress (running, waiting or settling), at most `limit` (default 100). */
  activeTurns(limit?: number): Promise<TurnRecord[]>;
  /** How many injections wait for a turn. */
  pendingCount(sessionId: string): Promise<number>;
  /**
   * Whether a turn could run now: a turn left running (by a crashed worker) or settling, a wait
   * whose deadline passed, `approvalsReady` answering true for a turn waiting for approvals,
   * `stopRequested` answering true for a waiting turn (its caller canceled it), or waiting
   * injections while no turn waits. One round trip unless `approvalsReady` or `stopRequested` is asked.
   */
  hasWork(
    sessionId: string,
    approvalsReady?: (pending: NonNullable<TurnRecord['pendingApprovals']>) => Promise<boolean>,
    stopRequested?: (turn: TurnRecord) => Promise<boolean>,
  ): Promise<boolean>;
}

/**
 * Reads what a turn starts from: the running turn, its inbox (the oldest waiting injection moved in
 * when there is no turn and no inbox) and the history. `false` when there is nothing to do. The
 * history comes as `{ messages, version, state }`: state 1, nothing sent (the version is the one
 * the caller holds); 0, the list's elements; 2, no list: the earlier single-string form, or `''`.
 * When a new turn is to start and `ARGV[2]` (now, ms) is set, the conversation index (`KEYS[7]`,
 * `KEYS[8]`) records it: ARGV session id, most conversations, idle cutoff (ms). The last element
 * of the reply is the length of hash `KEYS[9]` (the session's notes), or -1 without that key.
 * With `ARGV[6]` (a lock token; else ''), the last key is the session's lock, and nothing is done
 * (`false`) unless it holds that token. With `ARGV[7]` (an injection's JSON; else '') and `ARGV[8]`
 * (a turn record): when the injection moved in is exactly `ARGV[7]`, the record is saved as the
 * new turn's, and the reply's seventh element is 1 (else 0).
 */
const BEGIN_SCRIPT = defineScript(`${CONVERSATION_STARTED_LUA}
local guarded = ARGV[6] ~= ''
if guarded and redis.call('GET', KEYS[#KEYS]) ~= ARGV[6] then return false end
local session_keys = guarded and #KEYS - 1 or #KEYS
local turn = redis.call('GET', KEYS[1])
local inbox = redis.call('LRANGE', KEYS[2], 0, -1)
local created = 0
if not turn and #inbox == 0 then
  local moved = redis.call('LMOVE', KEYS[3], KEYS[2], 'LEFT', 'RIGHT')
  if not moved then return false end
  inbox = { moved }
  if moved == ARGV[7] then
    redis.call('SET', KEYS[1], ARGV[8])
    created = 1
  end
end
if not turn and ARGV[2] ~= '' then conversation_started(KEYS[7], KEYS[8], ARGV[3], ARGV[2], ARGV[4], ARGV[5], inbox[1]) end
local notes = session_keys >= 9 and redis.call('HLEN', KEYS[9]) or -1
local version = redis.call('GET', KEYS[5])
if version and version == ARGV[1] then return { turn or '', inbox, {}, version, 1, notes, created } end
if version then return { turn or '', inbox, redis.call('LRANGE', KEYS[4], 0, -1), version, 0, notes, created } end
return { turn or '', inbox, { redis.call('GET', KEYS[6]) or '' }, '', 2, notes, created }`);

/**
 * `add_log_entry(key, maxlen, expiry, first, last)`: adds `ARGV[first..last]` (a `StreamWrite`'s
 * fields) to the log stream `key` as one entry, capped at about `maxlen`, and sets its expiry
 * (seconds) unless `expiry` is ''. Answers the entry's id. Defined at the top of the scripts that
 * write a turn's log beside what they save.
 */
const ADD_LOG_ENTRY_LUA = `
local function add_log_entry(key, maxlen, expiry, first, last)
  local id = redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', unpack(ARGV, first, last))
  if expiry ~= '' then redis.call('EXPIRE', key, expiry) end
  return id
end
`;

/** A `StreamWrite`'s MAXLEN and expiry (seconds, or '') as {@link ADD_LOG_ENTRY_LUA} takes them. */
function logEntryArgs(logWrite: StreamWrite): [string, string] {
  return [logWrite.maxLen, logWrite.expireSeconds === undefined ? '' : String(logWrite.expireSeconds)];
}

/**
 * Adds one entry to a session's log (`KEYS[2]`) and saves its turn's record (`KEYS[1]`); answers
 * the entry's id. The entry first: when it cannot be added (the key is not a stream), the script
 * stops before the record is saved. ARGV: the record, the log's MAXLEN, its expiry in seconds (or
 * ''), then the entry's fields.
 */
const SAVE_SCRIPT = defineScript(`${ADD_LOG_ENTRY_LUA}
local logged = add_log_entry(KEYS[2], ARGV[2], ARGV[3], 4, #ARGV)
redis.call('SET', KEYS[1], ARGV[1])
return logged`);

/** What the finish script answers when the mailbox was empty and it let the session's lock go. */
const LOCK_LET_GO = -3;

/**
 * Applies a history change when the stored version is still the one the turn started from (`*`:
 * store it whole whatever is there), with its idle expiry; drops the turn, its inbox and the
 * earlier single-string history; answers `{ mailbox length, log entry id or '' }`, or `{ -1, '' }`
 * (nothing done) when the stored history changed meanwhile. ARGV: base version, new version, ttl,
 * drop count, new first message or '', the conversation settlement for the index (`KEYS[7]`,
 * `KEYS[8]`) or '', the log's MAXLEN and expiry in seconds (or '' twice), the session lock's
 * token and the session's member of the watch set (or '' twice), the number n of log fields, the
 * n fields, then the messages to append. With n > 0, `KEYS[9]` is the session's event log, where
 * the fields are added as one entry. With a token, the last two keys are the lock and the watch
 * set: when the mailbox is empty and the lock holds the token, the lock is deleted, the member
 * leaves the set, and the answer's first element is -3.
 */
const FINISH_SCRIPT = defineScript(`${CONVERSATION_SETTLED_LUA}${ADD_LOG_ENTRY_LUA}
if ARGV[1] ~= '*' and (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return { -1, '' } end
local fields = tonumber(ARGV[11])
local logged = ''
if fields > 0 then
  logged = add_log_entry(KEYS[9], ARGV[7], ARGV[8], 12, 11 + fields)
end
if ARGV[6] ~= '' then conversation_settled(KEYS[7], KEYS[8], ARGV[6]) end
if ARGV[1] == '*' then
  redis.call('DEL', KEYS[1])
else
  if tonumber(ARGV[4]) > 0 then redis.call('LTRIM', KEYS[1], ARGV[4], -1) end
  if ARGV[5] ~= '' then redis.call('LSET', KEYS[1], 0, ARGV[5]) end
end
for first = 12 + fields, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(ARGV, first, math.min(first + 999, #ARGV)))
end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
local waiting = redis.call('LLEN', KEYS[6])
if waiting > 0 or ARGV[9] == '' or redis.call('GET', KEYS[#KEYS - 1]) ~= ARGV[9] then return { waiting, logged } end
redis.call('DEL', KEYS[#KEYS - 1])
if ARGV[10] ~= '' then redis.call('ZREM', KEYS[#KEYS], ARGV[10]) end
return { ${String(LOCK_LET_GO)}, logged }`);

/** Remembers the injection id (`KEYS[1]`, for ARGV[2] seconds) and appends ARGV[1] to the mailbox; 0 for a repeat. */
const ACCEPT_LUA = `
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  return 1
end
return 0`;

const ACCEPT_SCRIPT = defineScript(ACCEPT_LUA);

/** The accept, unless field ARGV[3] of hash `KEYS[3]` exists or list `KEYS[4]` is not empty (then -1). */
const GUARDED_ACCEPT_LUA = `
if redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 or redis.call('LLEN', KEYS[4]) > 0 then return -1 end${ACCEPT_LUA}`;

const GUARDED_ACCEPT_SCRIPT = defineScript(GUARDED_ACCEPT_LUA);

/** First, the condition: the last key must exist, and its expiry becomes the last argument (ms); else -2. */
const CONDITION_LUA = `
if redis.call('PEXPIRE', KEYS[#KEYS], ARGV[#ARGV]) == 0 then return -2 end`;

const ACCEPT_WHILE_SCRIPT = defineScript(CONDITION_LUA + ACCEPT_LUA);
const GUARDED_ACCEPT_WHILE_SCRIPT = defineScript(CONDITION_LUA + GUARDED_ACCEPT_LUA);

const GUARDED: Readonly<Record<string, GuardedAccept>> = { '1': 'accepted', '0': 'duplicate', '-1': 'guarded' };

/** What {@link CONDITION_LUA} answers when the condition's key is gone. */
const LAPSED = -2;

/** The earlier single-string history (`<version>\n<JSON>`, or bare JSON before that), as a known history to be stored again whole. */
function legacyHistory(raw: string): KnownHistory {
  const json = raw.startsWith('[') ? raw : raw.slice(raw.indexOf('\n') + 1);
  const messages = json === '' ? [] : (JSON.parse(json) as ModelMessage[]);
  return { version: '', messages, sizes: messages.map((message) => JSON.stringify(message).length), rewrite: true };
}

/** The history a BEGIN_SCRIPT reply carries (see there), or the cached one it confirmed. */
function readHistory(reply: readonly [string[], string, number], cached: KnownHistory | undefined): KnownHistory {
  const [items, version, state] = reply;
  if (state === 1 && cached !== undefined) return cached;
  if (state === 2) return legacyHistory(items[0] ?? '');
  return { version, messages: items.map((item) => JSON.parse(item) as ModelMessage), sizes: items.map((item) => item.length) };
}

/** A new turn's record offered to the begin script, for when the mailbox's oldest injection is `json`. */
interface ProposedTurn {
  readonly json: string;
  readonly record: TurnRecord;
}

/** The key of one part (`turn`, `pending`, `inbox`, `hist`, …) of a session's state under `prefix`. */
function sessionKey(prefix: string, sessionId: string, part: string): string {
  return `${prefix}:s:${sessionId}:${part}`;
}

/**
 * The keys that tell whether a session has work (its turn record, then its lists of waiting
 * messages: pending, inbox), for a script that looks at them as the session's lock is let go.
 */
export function sessionWorkKeys(prefix: string, sessionId: string): readonly [string, string, string] {
  return [sessionKey(prefix, sessionId, 'turn'), sessionKey(prefix, sessionId, 'pending'), sessionKey(prefix, sessionId, 'inbox')];
}

/** A {@link SessionStore} in Redis. */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const dedupeTtl = options.dedupeTtlSeconds ?? 7 * 24 * 3600;
  const historyTtl = options.historyTtlSeconds ?? 90 * 24 * 3600;
  const key = (sessionId: string, part: string): string => sessionKey(prefix, sessionId, part);
  const parseInjections = (raw: string[]): Injection[] => raw.map((item) => JSON.parse(item) as Injection);
  // What this process accepted and no begin moved yet: a begin offers a record made from the oldest.
  const accepted = acceptedInjections(options.beginsTurns === false ? 0 : undefined);
  // Runs an accept's script on the injection's JSON (ARGV[1]); the script answers 1 when it stored it.
  const acceptScript = async (sessionId: string, injection: Injection, script: RedisScript, keys: string[], rest: string[]): Promise<unknown> => {
    const json = accepted.stored(sessionId, injection);
    let answer: unknown;
    try {
      answer = await runScript(redis, script, keys, [json, ...rest]);
    } finally {
      if (answer !== 1) accepted.notStored(sessionId, json);
    }
    return answer;
  };
  const proposal = (sessionId: string, create: (first: Injection) => TurnRecord): ProposedTurn | undefined => {
    const oldest = accepted.oldest(sessionId);
    return oldest === undefined ? undefined : { json: oldest.json, record: create(oldest.injection) };
  };
  // The histories this process read or wrote last, least recently used forgotten first.
  const known = recentMap<string, KnownHistory>(options.historyCacheSize ?? 1000, { refreshOnGet: true });
  const index = options.conversations === false ? undefined : (options.conversations ?? conversationIndexLayout(prefix));
  // Without an index the scripts still get its two keys (never touched), so their shape is one.
  const indexKeys = [index?.indexKey ?? `${prefix}:conv:idx`, index?.summaryKey ?? `${prefix}:conv:sum`];

  return {
    async accept(sessionId, injection) {
      const added = await acceptScript(sessionId, injection, ACCEPT_SCRIPT, [`${prefix}:inj:${injection.id}`, key(sessionId, 'pending')], [String(dedupeTtl)]);
      return added === 1;
    },

    async acceptUnless(sessionId, injection, guard) {
      const keys = [`${prefix}:inj:${injection.id}`, key(sessionId, 'pending'), guard.blockedKey, guard.heldKey];
      const answer = await acceptScript(sessionId, injection, GUARDED_ACCEPT_SCRIPT, keys, [String(dedupeTtl), guard.blockedField]);
      return GUARDED[String(answer)] ?? 'guarded';
    },

    async acceptWhile(sessionId, injection, condition, guard) {
      const accept = [`${prefix}:inj:${injection.id}`, key(sessionId, 'pending')];
      const ttl = String(Math.ceil(condition.ttlMs));
      const answer = guard === undefined
        ? await acceptScript(sessionId, injection, ACCEPT_WHILE_SCRIPT, [...accept, condition.key], [String(dedupeTtl), ttl])
        : await acceptScript(sessionId, injection, GUARDED_ACCEPT_WHILE_SCRIPT, [...accept, guard.blockedKey, guard.heldKey, condition.key], [String(dedupeTtl), guard.blockedField, ttl]);
      return answer === LAPSED ? 'lapsed' : (GUARDED[String(answer)] ?? 'guarded');
    },

    async renew(condition) {
      return (await redis.pexpire(condition.key, Math.ceil(condition.ttlMs))) === 1;
    },

    async beginTurn(sessionId, create, at = Date.now(), lock) {
      const keys = [...['turn', 'inbox', 'pending', 'hist', 'histv', 'history'].map((part) => key(sessionId, part)), ...indexKeys];
      if (options.notesKey !== undefined) keys.push(options.notesKey(sessionId));
      if (lock !== undefined) keys.push(lock.key);
      const cached = known.get(sessionId);
      const started = index === undefined ? ['', '', '', ''] : [at, sessionId, index.maxConversations, at - index.maxIdleMs];
      const proposed = proposal(sessionId, create);
      const args = [cached?.version ?? '', ...started, lock?.token ?? '', proposed?.json ?? '', proposed === undefined ? '' : JSON.stringify(proposed.record)];
      const reply = (await runScript(redis, BEGIN_SCRIPT, keys, args)) as [string, string[], string[], string, number, number, number] | null;
      if (reply === null) return undefined;
      const [turnRaw, inboxRaw, items, version, state, notes, created] = reply;
      const inbox = parseInjections(inboxRaw);
      const base = readHistory([items, version, state], cached);
      // Kept for the next turn here, and as the base the turn's changes are computed against.
      known.set(sessionId, base);
      const begun = { inbox, history: base.messages, historyChars: listChars(base.sizes), ...(notes < 0 ? {} : { notesWaiting: notes > 0 }) };
      if (turnRaw !== '') return { record: JSON.parse(turnRaw) as TurnRecord, ...begun, resumed: true };
      if (inboxRaw[0] !== undefined) accepted.moved(sessionId, inboxRaw[0]);
      if (created === 1 && proposed !== undefined) return { record: proposed.record, ...begun, resumed: false };
      const first = inbox[0];
      if (first === undefined) return undefined;
      const record = create(first);
      const saved = redis.set(key(sessionId, 'turn'), JSON.stringify(record)).then(() => undefined);
      // Handled here too, so a caller that fails before awaiting it leaves no unhandled rejection.
      saved.catch(() => undefined);
      return { record, ...begun, resumed: false, saved };
    },

    async steer(sessionId) {
      const pending = key(sessionId, 'pending');
      const inbox = key(sessionId, 'inbox');
      while (((await redis.lmove(pending, inbox, 'LEFT', 'RIGHT')) as string | null) !== null) {
        // moved one; loop until the mailbox is empty
      }
      return parseInjections(await redis.lrange(inbox, 0, -1));
    },

    async saveTurn(record, logWrite) {
      const turnKey = key(record.sessionId, 'turn');
      if (logWrite === undefined) {
        await redis.set(turnKey, JSON.stringify(record));
        return;
      }
      const logged = await runScript(redis, SAVE_SCRIPT, [turnKey, logWrite.key], [JSON.stringify(record), ...logEntryArgs(logWrite), ...logWrite.fields]);
      await logWrite.written(String(logged));
    },

    async finishTurn(record, history, conversation, { logWrite, lock } = {}) {
      const { sessionId, turnId } = record;
      const keys = [
        ...['hist', 'histv', 'history', 'turn', 'inbox', 'pending'].map((part) => key(sessionId, part)),
        ...indexKeys,
        ...(logWrite === undefined ? [] : [logWrite.key]),
        ...(lock === undefined ? [] : [lock.key, lock.watchKey ?? lock.key]),
      ];
      const settled = index === undefined || conversation === undefined ? '' : settlementArgument(conversation);
      const logArgs = logWrite === undefined ? ['', ''] : logEntryArgs(logWrite);
      const letGo = lock === undefined ? ['', ''] : [lock.token, lock.watchKey === undefined ? '' : sessionId];
      const fields = logWrite?.fields ?? [];
      const write = async (base: string, change: HistoryChange): Promise<number> => {
        const args = [base, turnId, String(historyTtl), String(change.drop), change.first ?? '', settled, ...logArgs, ...letGo, String(fields.length), ...fields, ...change.append];
        const [answer, logged] = (await runScript(redis, FINISH_SCRIPT, keys, args)) as [number, string];
        if (logged !== '') await logWrite?.written(logged);
        if (answer !== LOCK_LET_GO) return answer;
        lock?.letGo();
        return 0;
      };
      const base = known.get(sessionId);
      // Without the base this turn began from (evicted, or an earlier single-string form), store it whole.
      const whole = base === undefined || base.rewrite === true;
      let change = whole ? wholeHistory(history, 0) : historyChange(base, history);
      let waiting = await write(whole ? '*' : base.version, change);
      if (waiting < 0) {
        // Another process wrote the history since this turn read it: this turn's history wins, whole.
        change = wholeHistory(history, 0);
        waiting = await write('*', change);
      }
      known.set(sessionId, { version: turnId, messages: history, sizes: change.sizes });
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

    async hasWork(sessionId, approvalsReady, stopRequested) {
      // Sent in the same tick, both reads share one socket write and round trip (write-coalescing.ts).
      const [turnRaw, pending] = await Promise.all([redis.get(key(sessionId, 'turn')), redis.llen(key(sessionId, 'pending'))]);
      if (turnRaw === null) return pending > 0;
      const turn = JSON.parse(turnRaw) as TurnRecord;
      if (turn.status !== 'waiting') return true;
      // A waiting turn whose caller asked it to stop runs now, to stop (and say so).
      if (stopRequested !== undefined && (await stopRequested(turn))) return true;
      // A wait with no approvals ends at its deadline; approvals are checked by their own store.
      if (turn.pendingApprovals !== undefined) return approvalsReady === undefined ? false : approvalsReady(turn.pendingApprovals);
      return turn.wait !== undefined && Date.now() >= Date.parse(turn.wait.until);
    },
  };
}
