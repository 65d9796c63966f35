/**
 * Model spending counted in Redis, shared by every worker: tokens and model calls per sender, per
 * conversation and for the whole deployment, per UTC day and month, and the turns each sender
 * started in the last minute. Each check is one Lua script, and so are the counts of one turn of the
 * event loop (summed per key), so processes never see half of another's update.
 *
 * Keys (`<p>` the prefix): `<p>:budget:<scope>:<id>:d:<YYYY-MM-DD>` and `…:m:<YYYY-MM>` (hashes of
 * `tokens` and `calls`, a sender's and the deployment's day also `costMicros`; the deployment's id is
 * `all`), `<p>:budget:top:<scope>:d:<YYYY-MM-DD>` (senders and conversations of the day by tokens) —
 * each expiring an hour after its period ends — and `<p>:budget:rate:<sender>` (a sorted set of turn ids by start time, expiring after a window
 * without a new turn). On a Redis Cluster the prefix is a hash tag, so every key shares its slot.
 */
import type { Redis } from 'ioredis';
import type { BudgetLimits } from '../app/app-types.ts';
import { defineScript, runScript } from '../redis/redis-script.ts';
import { periodWindow, type BudgetPeriod } from './budget-periods.ts';
import { budgetRecorder, type CounterCount } from './budget-record.ts';

/** Whose spending a budget limits: one sender, one conversation (session), or the deployment. */
export type BudgetScope = 'sender' | 'conversation' | 'deployment';

/** What a budget counts. */
export type BudgetMeasure = 'tokens' | 'calls';

/** The id of the deployment's scope. */
export const DEPLOYMENT_ID = 'all';

/** Tokens and model calls counted in one period. */
export interface BudgetUsage {
  readonly tokens: number;
  readonly calls: number;
  /**
   * Estimated cost of those calls in whole micro-dollars (`src/runtime/inspect/model-prices.ts`),
   * counted on the day counters of senders and the deployment only (a month or a conversation
   * reads none: the conversation index has each conversation's). Default 0.
   */
  readonly costMicros?: number;
}

/** One scope's counters and the limits they are checked against. */
export interface ScopeLimits {
  readonly scope: BudgetScope;
  /** The sender key, the session id, or {@link DEPLOYMENT_ID}. */
  readonly id: string;
  readonly limits: BudgetLimits;
}

/** A sender's turn rate: at most `maxTurns` turns started within any `windowMs`. */
export interface TurnRate {
  readonly senderId: string;
  /** The turn asking; a turn already counted (resumed after a crash) is let through again. */
  readonly turnId: string;
  readonly maxTurns: number;
  readonly windowMs: number;
}

/** The answer of {@link BudgetStore.admit}. */
export type Admission =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly scope: BudgetScope;
      readonly period: BudgetPeriod;
      readonly measure: BudgetMeasure;
      readonly used: number;
      readonly limit: number;
      /** When the period ends and the counter starts again, ms since the epoch. */
      readonly resetsAt: number;
    }
  | { readonly ok: false; readonly scope: 'rate'; readonly retryAfterMs: number };

/** A sender or conversation among the day's biggest spenders. */
export interface TopSpender extends BudgetUsage {
  readonly id: string;
}

/** The counters; see the module comment for the keys. */
export interface BudgetStore {
  /**
   * Whether a turn may call the model at `at` (ms since the epoch): every scope under all of its
   * limits (a counter that reached its limit refuses; months are checked before days, so the
   * refusal that lasts longer is the one told), then, with `rate`, a place in the sender's window,
   * which the turn then holds.
   */
  admit(scopes: readonly ScopeLimits[], rate: TurnRate | undefined, at: number): Promise<Admission>;
  /** Adds `usage` to the day's and the month's counters of each scope, and to the day's top lists. */
  record(scopes: readonly Pick<ScopeLimits, 'scope' | 'id'>[], usage: BudgetUsage, at: number): Promise<void>;
  /** The counters of one scope for the day and the month of `at`. */
  usage(scope: BudgetScope, id: string, at: number): Promise<Readonly<Record<BudgetPeriod, BudgetUsage>>>;
  /** The `count` senders or conversations that used the most tokens on the day of `at`, most first. */
  topToday(scope: 'sender' | 'conversation', at: number, count: number): Promise<TopSpender[]>;
}

/** Options of {@link createBudgetStore}. */
export interface BudgetStoreOptions {
  /** A connection the caller owns (and closes). */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
}

/**
 * KEYS: each scope's day and month hashes, then the sender's rate set. ARGV: the number of scopes;
 * each scope's day tokens, day calls, month tokens, month calls (-1: no limit); the turn id, now
 * (ms), the window (ms) and the most turns in it (-1: no rate). Answers `{0}` (go on), `{scope,
 * period (1 day, 2 month), measure (1 tokens, 2 calls), used, limit}`, or `{-1, retry after ms}`.
 */
const ADMIT_SCRIPT = defineScript(`
local n = tonumber(ARGV[1])
for _, p in ipairs({ 2, 1 }) do
  for i = 1, n do
    local used = redis.call('HMGET', KEYS[(i - 1) * 2 + p], 'tokens', 'calls')
    for m = 1, 2 do
      local limit = tonumber(ARGV[1 + (i - 1) * 4 + (p - 1) * 2 + m])
      local count = tonumber(used[m]) or 0
      if limit >= 0 and count >= limit then return { i, p, m, count, limit } end
    end
  end
end
local r = 2 + n * 4
local max = tonumber(ARGV[r + 3])
if max < 0 then return { 0 } end
local key = KEYS[n * 2 + 1]
local now, window = tonumber(ARGV[r + 1]), tonumber(ARGV[r + 2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZSCORE', key, ARGV[r]) then return { 0 } end
if redis.call('ZCARD', key) >= max then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return { -1, tonumber(oldest[2]) + window - now }
end
redis.call('ZADD', key, now, ARGV[r])
redis.call('PEXPIRE', key, window)
return { 0 }`);

/** How long counters outlive their period: an hour, for processes whose clocks run a little behind. */
const GRACE_SECONDS = 3600;

const PERIODS: readonly BudgetPeriod[] = ['day', 'month'];
const MEASURES: readonly BudgetMeasure[] = ['tokens', 'calls'];

/** A limit as the admit script takes it: -1 for none. */
function limitArg(limits: BudgetLimits, period: BudgetPeriod, measure: BudgetMeasure): number {
  const value = limits[`${measure}Per${period === 'day' ? 'Day' : 'Month'}`];
  return value ?? -1;
}

/** The usage of an `HMGET … tokens calls costMicros` reply (`costMicros` only when some was counted). */
function usageOf(reply: readonly (string | null)[]): BudgetUsage {
  const costMicros = Number(reply[2] ?? 0);
  return { tokens: Number(reply[0] ?? 0), calls: Number(reply[1] ?? 0), ...(costMicros > 0 ? { costMicros } : {}) };
}

/**
 * A {@link BudgetStore} on `options.redis`. The records of one turn of the event loop (many turns'
 * model calls, in a busy process) go to Redis as one script, summed per key, and each `record`
 * resolves once that script ran: counts are as exact as one script per call made them, at a
 * fraction of the commands.
 */
export function createBudgetStore(options: BudgetStoreOptions): BudgetStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const counterKey = (scope: BudgetScope, id: string, period: BudgetPeriod, at: number): string =>
    `${prefix}:budget:${scope}:${id}:${period === 'day' ? 'd' : 'm'}:${periodWindow(period, at).id}`;
  const topKey = (scope: BudgetScope, at: number): string => `${prefix}:budget:top:${scope}:d:${periodWindow('day', at).id}`;
  const counterKeys = (scopes: readonly Pick<ScopeLimits, 'scope' | 'id'>[], at: number): string[] =>
    scopes.flatMap(({ scope, id }) => PERIODS.map((period) => counterKey(scope, id, period, at)));

  const addRecord = budgetRecorder(redis);

  return {
    async admit(scopes, rate, at) {
      const keys = [...counterKeys(scopes, at), `${prefix}:budget:rate:${rate?.senderId ?? ''}`];
      const limits = scopes.flatMap(({ limits: scoped }) => PERIODS.flatMap((period) => MEASURES.map((measure) => limitArg(scoped, period, measure))));
      const rateArgs = rate === undefined ? ['', at, 0, -1] : [rate.turnId, at, rate.windowMs, rate.maxTurns];
      const reply = (await runScript(redis, ADMIT_SCRIPT, keys, [scopes.length, ...limits, ...rateArgs])) as number[];
      const [first = 0, second = 0] = reply;
      if (first === 0) return { ok: true };
      if (first < 0) return { ok: false, scope: 'rate', retryAfterMs: Math.max(0, second) };
      const [, , measure, used = 0, limit = 0] = reply;
      const period: BudgetPeriod = second === 2 ? 'month' : 'day';
      const scope = scopes[first - 1]?.scope ?? 'deployment';
      return { ok: false, scope, period, measure: measure === 2 ? 'calls' : 'tokens', used, limit, resetsAt: periodWindow(period, at).endsAt };
    },

    async record(scopes, usage, at) {
      const [dayExpiry, monthExpiry] = PERIODS.map((period) => Math.ceil(periodWindow(period, at).endsAt / 1000) + GRACE_SECONDS) as [number, number];
      const cost = Math.max(0, Math.round(usage.costMicros ?? 0));
      const counters: [string, CounterCount][] = scopes.flatMap(({ scope, id }) => [
        // Cost per sender and for the deployment, on the day; each conversation's is in the conversation index.
        [counterKey(scope, id, 'day', at), { tokens: usage.tokens, calls: usage.calls, costMicros: scope === 'conversation' ? 0 : cost, expiry: dayExpiry, day: true }],
        [counterKey(scope, id, 'month', at), { tokens: usage.tokens, calls: usage.calls, costMicros: 0, expiry: monthExpiry, day: false }],
      ]);
      const tops = scopes.filter((scoped) => scoped.scope !== 'deployment').map(({ scope, id }) => ({ key: topKey(scope, at), id }));
      await addRecord({ counters, tops, tokens: usage.tokens, topExpiry: dayExpiry });
    },

    async usage(scope, id, at) {
      const [day, month] = await Promise.all(PERIODS.map((period) => redis.hmget(counterKey(scope, id, period, at), 'tokens', 'calls', 'costMicros')));
      return { day: usageOf(day ?? []), month: usageOf(month ?? []) };
    },

    async topToday(scope, at, count) {
      const flat = await redis.zrevrange(topKey(scope, at), 0, count - 1, 'WITHSCORES');
      const ids = flat.filter((_, index) => index % 2 === 0);
      const counters = await Promise.all(ids.map((id) => redis.hmget(counterKey(scope, id, 'day', at), 'tokens', 'calls', 'costMicros')));
      return ids.map((id, index) => ({ id, ...usageOf(counters[index] ?? []) }));
    },
  };
}
