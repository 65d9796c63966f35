/**
 * The conversations the service had, for the inspector: one summary per session (who, where,
 * which actor, how it stands, how much it cost), found by time, person, address, channel, actor
 * and state. Turns keep it up to date inside the session store's scripts (see
 * `conversation-index-layout.ts`); this module reads it and records what happens outside a turn's
 * start and settlement (a suspension, a resumption, a delivery that failed for good).
 */
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../protocol/errors.ts';
import { defineScript, runScript } from '../redis/redis-script.ts';
import { conversationIndexLayout, DEFAULT_MAX_IDLE_MS, type ConversationIndexLayout } from './conversation-index-layout.ts';

/** How a conversation stands: its last turn runs, waits for an approval, ended in error (or lost a delivery), or ended. */
export type ConversationState = 'in-progress' | 'suspended' | 'failed' | 'settled';

/** One conversation (one session). Times are ms since the epoch; cost is an estimate. */
export interface ConversationSummary {
  readonly sessionId: string;
  readonly channel: string;
  /** Where answers go: a web conversation id, an email address, an E.164 number, a Slack channel. */
  readonly address: string;
  /** The sender of the last settled turn's first message (the first turn's, before one settled). */
  readonly senderId?: string;
  readonly personId?: string;
  /** The actor that answered last. */
  readonly actor: string;
  readonly state: ConversationState;
  /** When its first turn started. */
  readonly firstAt: number;
  /** When its last turn started, or its state last changed, whichever is later. */
  readonly lastAt: number;
  /** Settled turns. */
  readonly turns: number;
  /** Tokens of every model call of its settled turns. */
  readonly tokens: number;
  /** Estimated cost of those calls, in US dollars. */
  readonly costUsd: number;
  /** The last text of its last settled turn (the answer, else the person's message), at most 200 characters. */
  readonly lastText?: string;
}

/** A search: every field narrows it; all left out lists every conversation, newest first. */
export interface ConversationQuery {
  /** A person id, or a sender id (exact; an email address in any case). */
  readonly person?: string;
  /** The conversation's address (exact; an email address in any case). */
  readonly address?: string;
  readonly channel?: string;
  readonly actor?: string;
  readonly state?: ConversationState;
  /** Only conversations whose last turn started at or after this time (ms since the epoch). */
  readonly from?: number;
  /** Only conversations whose last turn started at or before this time (ms since the epoch). */
  readonly to?: number;
  /** The `next` of the previous page. */
  readonly cursor?: string;
  /** Most items on the page, 1 to 200. Default 50. */
  readonly limit?: number;
}

/** One page of a search, newest first. */
export interface ConversationPage {
  readonly items: readonly ConversationSummary[];
  /**
   * Where the next page starts, when the search has more to look at. A page may hold fewer than
   * `limit` items and still have a `next`: each page looks at no more than 2000 conversations.
   */
  readonly next?: string;
}

/** Reads the index. */
export interface ConversationIndex {
  search(query: ConversationQuery): Promise<ConversationPage>;
  get(sessionId: string): Promise<ConversationSummary | undefined>;
}

/** What is recorded outside a turn's start and settlement. Each is one script run, a no-op for an unknown conversation. */
export interface ConversationMarks {
  /** The conversation's turn waits for approvals since `at` (ms). */
  markSuspended(sessionId: string, at: number): Promise<void>;
  /** The conversation's suspended turn runs again since `at` (ms). */
  markResumed(sessionId: string, at: number): Promise<void>;
  /** A delivery of `turnId` failed for good: while it is the last settled turn, the conversation is `failed`. */
  markDeliveryFailed(sessionId: string, turnId: string): Promise<void>;
}

/** Options of {@link createConversationIndex}. */
export interface ConversationIndexOptions {
  /** A connection the caller owns (and closes). */
  readonly redis: Redis;
  /** Key prefix, as the session store's. */
  readonly prefix: string;
  /** Most conversations kept (the oldest go first). Default 50 000. */
  readonly maxConversations?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** Most conversations one search request looks at. */
const MAX_EXAMINED = 2000;
/** Conversations read per round trip of a search. */
const BATCH = 200;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** A summary as the scripts store it (see `conversation-index-lua.ts`). */
interface StoredSummary {
  readonly first?: number;
  readonly ch?: string;
  readonly addr?: string;
  readonly sender?: string;
  readonly person?: string;
  readonly actor?: string;
  readonly state?: string;
  readonly stateAt?: number;
  readonly turns?: number;
  readonly tokens?: number;
  readonly micros?: number;
  readonly last?: string;
  readonly lastTurn?: string;
  readonly failedTurn?: string;
}

/** Sets a summary's state (`ARGV[2]`, at `ARGV[3]` ms) or, for `failed-delivery`, its failed turn (`ARGV[3]`). */
const MARK_SCRIPT = defineScript(`
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local s = cjson.decode(raw)
if ARGV[2] == 'failed-delivery' then
  s.failedTurn = ARGV[3]
else
  s.state = ARGV[2]
  s.stateAt = tonumber(ARGV[3])
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(s))
return 1`);

/** Drops up to 500 conversations idle since before `ARGV[1]` (ms) from both keys. */
const PRUNE_SCRIPT = defineScript(`
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 500)
if #old == 0 then return 0 end
redis.call('ZREM', KEYS[1], unpack(old))
redis.call('HDEL', KEYS[2], unpack(old))
return #old`);

function stateOf(score: number, stored: StoredSummary): ConversationState {
  if (score > (stored.stateAt ?? 0)) return 'in-progress';
  if (stored.state === 'suspended' || stored.state === 'in-progress') return stored.state;
  if (stored.state === 'failed' || (stored.failedTurn !== undefined && stored.failedTurn === stored.lastTurn)) return 'failed';
  return 'settled';
}

/** The summary of `sessionId` from its score and stored JSON. */
function toSummary(sessionId: string, score: number, raw: string): ConversationSummary {
  const stored = JSON.parse(raw) as StoredSummary;
  return {
    sessionId,
    channel: stored.ch ?? '',
    address: stored.addr ?? '',
    ...(stored.sender === undefined ? {} : { senderId: stored.sender }),
    ...(stored.person === undefined ? {} : { personId: stored.person }),
    actor: stored.actor ?? '',
    state: stateOf(score, stored),
    firstAt: stored.first ?? score,
    lastAt: Math.max(score, stored.stateAt ?? 0),
    turns: stored.turns ?? 0,
    tokens: stored.tokens ?? 0,
    costUsd: (stored.micros ?? 0) / 1_000_000,
    ...(stored.last === undefined ? {} : { lastText: stored.last }),
  };
}

/** Whether an address (or sender id) is the one asked for: exactly, in any case for an email address. */
function sameAddress(actual: string | undefined, asked: string): boolean {
  if (actual === undefined) return false;
  return actual.includes('@') || asked.includes('@') ? actual.toLowerCase() === asked.toLowerCase() : actual === asked;
}

function matches(summary: ConversationSummary, query: ConversationQuery): boolean {
  if (query.channel !== undefined && summary.channel !== query.channel) return false;
  if (query.actor !== undefined && summary.actor !== query.actor) return false;
  if (query.state !== undefined && summary.state !== query.state) return false;
  if (query.address !== undefined && !sameAddress(summary.address, query.address)) return false;
  if (query.person !== undefined && summary.personId !== query.person && !sameAddress(summary.senderId, query.person)) return false;
  return true;
}

/** Where a search stands in the index: below score `max` (inclusive), `skip` members of score `max` already seen. */
interface Position {
  readonly max: number;
  readonly skip: number;
}

function encodeCursor(position: Position): string {
  return `${String(position.max)}.${String(position.skip)}`;
}

function decodeCursor(cursor: string): Position {
  const match = /^(\d{1,16})\.(\d{1,6})$/.exec(cursor);
  if (match === null) throw new SwitchboardError('http.bad_request', 'The conversation cursor is not one this service gave.', { details: { cursor } });
  return { max: Number(match[1]), skip: Number(match[2]) };
}

/** The position after looking at a conversation of `score`. */
function after(position: Position, score: number): Position {
  return score === position.max ? { max: score, skip: position.skip + 1 } : { max: score, skip: 1 };
}

/**
 * The conversation index on `options.redis`, with the writers the service needs: its `layout`
 * (for the session store, which keeps it as turns start and settle) and {@link ConversationMarks}.
 * A search walks the index newest first (`ZREVRANGEBYSCORE … LIMIT`, 200 at a time), reads the
 * summaries of each batch (`HMGET`) and keeps those that match; it looks at 2000 conversations at
 * most per request, and drops conversations idle for over 30 days first.
 */
export function createConversationIndex(options: ConversationIndexOptions): ConversationIndex & ConversationMarks & { readonly layout: ConversationIndexLayout } {
  const { redis } = options;
  const now = options.now ?? Date.now;
  const layout = conversationIndexLayout(options.prefix, options.maxConversations);
  const { indexKey, summaryKey } = layout;
  const mark = async (sessionId: string, what: string, value: string): Promise<void> => {
    await runScript(redis, MARK_SCRIPT, [summaryKey], [sessionId, what, value]);
  };

  return {
    layout,
    async search(query) {
      const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT)));
      const cutoff = now() - DEFAULT_MAX_IDLE_MS;
      await runScript(redis, PRUNE_SCRIPT, [indexKey, summaryKey], [cutoff]);
      const min = Math.max(cutoff, query.from ?? 0);
      let position: Position | undefined = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const items: ConversationSummary[] = [];
      let examined = 0;
      while (examined < MAX_EXAMINED) {
        const max = position === undefined ? (query.to === undefined ? '+inf' : String(query.to)) : String(position.max);
        const flat = await redis.zrevrangebyscore(indexKey, max, String(min), 'WITHSCORES', 'LIMIT', position?.skip ?? 0, Math.min(BATCH, MAX_EXAMINED - examined));
        if (flat.length === 0) return { items };
        const ids = flat.filter((_, index) => index % 2 === 0);
        const raws = await redis.hmget(summaryKey, ...ids);
        for (const [index, sessionId] of ids.entries()) {
          const score = Number(flat[index * 2 + 1]);
          position = position === undefined ? { max: score, skip: 1 } : after(position, score);
          examined += 1;
          const raw = raws[index];
          if (raw === null || raw === undefined) continue;
          const summary = toSummary(sessionId, score, raw);
          if (!matches(summary, query)) continue;
          items.push(summary);
          if (items.length === limit) return { items, next: encodeCursor(position) };
        }
      }
      return position === undefined ? { items } : { items, next: encodeCursor(position) };
    },
    async get(sessionId) {
      const [raw, score] = await Promise.all([redis.hget(summaryKey, sessionId), redis.zscore(indexKey, sessionId)]);
      if (raw === null || score === null) return undefined;
      return toSummary(sessionId, Number(score), raw);
    },
    markSuspended: (sessionId, at) => mark(sessionId, 'suspended', String(at)),
    markResumed: (sessionId, at) => mark(sessionId, 'in-progress', String(at)),
    markDeliveryFailed: (sessionId, turnId) => mark(sessionId, 'failed-delivery', turnId),
  };
}
