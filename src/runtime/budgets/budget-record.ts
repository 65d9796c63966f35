/**
 * The budget counts of one turn of the event loop, written as one Lua script: a busy process's
 * model calls (each counted on its sender, its conversation and the deployment, for the day and
 * the month) summed per key, each caller waiting for the script (`loop-turn-batch.ts`). The keys
 * are `budget-store.ts`'s.
 */
import type { Redis } from 'ioredis';
import { loopTurnBatch, type LoopTurnBatch } from '../redis/loop-turn-batch.ts';
import { defineScript, runScript } from '../redis/redis-script.ts';

/**
 * The counts of one loop turn's records, summed per key (`sumRecords`). KEYS: the counter hashes,
 * then the day's top sets. ARGV: the number of counters; per counter its tokens, calls, cost in
 * micro-dollars (0: none), expiry (seconds since the epoch) and `1` for a day counter; per top set
 * its expiry and member count, then each member and its tokens. A counter gets its expiry when
 * this write created it (its count is this write's), and the top sets theirs when a day counter
 * was created (a new sender or conversation of the day, or a new day), so a busy counter costs its
 * increments only.
 */
const RECORD_SCRIPT = defineScript(`
local counters = tonumber(ARGV[1])
local a = 2
local newDay = false
for i = 1, counters do
  local key, calls, cost = KEYS[i], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  redis.call('HINCRBY', key, 'tokens', ARGV[a])
  if cost > 0 then redis.call('HINCRBY', key, 'costMicros', cost) end
  if redis.call('HINCRBY', key, 'calls', calls) == calls then
    redis.call('EXPIREAT', key, ARGV[a + 3])
    if ARGV[a + 4] == '1' then newDay = true end
  end
  a = a + 5
end
for t = counters + 1, #KEYS do
  local expiry, members = ARGV[a], tonumber(ARGV[a + 1])
  a = a + 2
  for m = 1, members do
    redis.call('ZINCRBY', KEYS[t], ARGV[a + 1], ARGV[a])
    a = a + 2
  end
  if newDay then redis.call('EXPIREAT', KEYS[t], expiry) end
end
return 1`);

/** What one counter hash gets from a batch of records. */
export interface CounterCount {
  tokens: number;
  calls: number;
  costMicros: number;
  readonly expiry: number;
  readonly day: boolean;
}

/** What one day's top set gets from a batch of records: tokens per member. */
interface TopCount {
  readonly expiry: number;
  readonly members: Map<string, number>;
}

/** One loop turn's records, summed per key. */
interface RecordBatch {
  readonly counters: Map<string, CounterCount>;
  readonly tops: Map<string, TopCount>;
}

/** The record script's keys and arguments for `batch`. */
function recordCall(batch: RecordBatch): { keys: string[]; args: (string | number)[] } {
  const args: (string | number)[] = [batch.counters.size];
  for (const count of batch.counters.values()) args.push(count.tokens, count.calls, count.costMicros, count.expiry, count.day ? 1 : 0);
  for (const top of batch.tops.values()) {
    args.push(top.expiry, top.members.size);
    for (const [member, tokens] of top.members) args.push(member, tokens);
  }
  return { keys: [...batch.counters.keys(), ...batch.tops.keys()], args };
}

/** One record's counts, before a batch sums them. */
export interface PendingRecord {
  readonly counters: readonly (readonly [string, CounterCount])[];
  readonly tops: readonly { readonly key: string; readonly id: string }[];
  readonly tokens: number;
  readonly topExpiry: number;
}

/** Sums the records of one loop turn per counter and per top-set member. */
function sumRecords(records: readonly PendingRecord[]): RecordBatch {
  const counters = new Map<string, CounterCount>();
  const tops = new Map<string, TopCount>();
  for (const record of records) {
    for (const [key, count] of record.counters) {
      const summed = counters.get(key);
      if (summed === undefined) counters.set(key, { ...count });
      else {
        summed.tokens += count.tokens;
        summed.calls += count.calls;
        summed.costMicros += count.costMicros;
      }
    }
    for (const { key, id } of record.tops) {
      const top = tops.get(key) ?? { expiry: record.topExpiry, members: new Map<string, number>() };
      tops.set(key, top);
      top.members.set(id, (top.members.get(id) ?? 0) + record.tokens);
    }
  }
  return { counters, tops };
}

/** Adds a record to the current loop turn's batch; resolves once the batch's script ran. */
export function budgetRecorder(redis: Redis): LoopTurnBatch<PendingRecord> {
  return loopTurnBatch<PendingRecord>(async (records) => {
    const { keys, args } = recordCall(sumRecords(records));
    await runScript(redis, RECORD_SCRIPT, keys, args);
  });
}
