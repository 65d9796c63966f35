/**
 * What a bench run costs Redis: commands by name (from `INFO commandstats`, before and after the
 * run), and the bytes each idle session keeps (`MEMORY USAGE` of its keys).
 */
import type { Redis } from 'ioredis';

/** Calls per command name, as `INFO commandstats` counts them (the whole server). */
export type CommandCounts = ReadonlyMap<string, number>;

/** Reads the server's command counters. */
export async function commandCounts(redis: Redis): Promise<CommandCounts> {
  const info = await redis.info('commandstats');
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts.set(match[1] ?? '', Number(match[2]));
  return counts;
}

/** CPU used so far, in microseconds: the Redis server's (`INFO cpu`, user and system) and this process's. */
export interface CpuReading {
  readonly redisUs: number;
  readonly processUs: number;
}

/** CPU per message between two readings, in microseconds. */
export interface CpuPerMessage {
  readonly redisUs: number;
  readonly processUs: number;
}

/** Reads the CPU both Redis and this process have used. */
export async function cpuNow(redis: Redis): Promise<CpuReading> {
  const info = await redis.info('cpu');
  const seconds = (name: string): number => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
  const usage = process.cpuUsage();
  return { redisUs: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6, processUs: usage.user + usage.system };
}

/** The commands run between two readings, most first, without the reading's own `info`. */
export function commandsBetween(before: CommandCounts, after: CommandCounts): [string, number][] {
  const diff = [...after].map(([name, calls]): [string, number] => [name, calls - (before.get(name) ?? 0) - (name === 'info' ? 1 : 0)]);
  return diff.filter(([, calls]) => calls > 0).sort((a, b) => b[1] - a[1]);
}

/** The total of {@link commandsBetween}, per message. */
export function commandsPerMessage(commands: readonly [string, number][], messages: number): number {
  return commands.reduce((sum, [, calls]) => sum + calls, 0) / messages;
}

/** Commands per message, in total and for the `top` most used, e.g. `155.0 (21.0 xadd, 12.5 evalsha, …)`. */
export function perMessage(commands: readonly [string, number][], messages: number, top = 6): string {
  const named = commands.slice(0, top).map(([name, calls]) => `${(calls / messages).toFixed(1)} ${name}`);
  return `${commandsPerMessage(commands, messages).toFixed(1)} (${named.join(', ')})`;
}

/**
 * The commands and CPU of the runs it is wrapped around, added up: for a system whose runs
 * alternate with another's on the same Redis. `INFO` (its own readings) is left out.
 */
export interface UsageMeter {
  /** Runs `run`, counting what Redis and this process spent meanwhile. */
  around<T>(run: () => Promise<T>): Promise<T>;
  /** Calls per command name over every run so far, most first. */
  commands(): [string, number][];
  /** CPU per message over every run so far, in microseconds, for `messages` messages in all. */
  cpu(messages: number): CpuPerMessage;
}

/** A {@link UsageMeter} reading `redis`'s counters and this process's CPU. */
export function usageMeter(redis: Redis): UsageMeter {
  const calls = new Map<string, number>();
  let redisUs = 0;
  let processUs = 0;
  return {
    async around(run) {
      const countsBefore = await commandCounts(redis);
      const cpuBefore = await cpuNow(redis);
      const result = await run();
      const cpuAfter = await cpuNow(redis);
      for (const [name, count] of commandsBetween(countsBefore, await commandCounts(redis))) {
        if (name !== 'info') calls.set(name, (calls.get(name) ?? 0) + count);
      }
      redisUs += cpuAfter.redisUs - cpuBefore.redisUs;
      processUs += cpuAfter.processUs - cpuBefore.processUs;
      return result;
    },
    commands: () => [...calls].sort((a, b) => b[1] - a[1]),
    cpu: (messages) => ({ redisUs: redisUs / messages, processUs: processUs / messages }),
  };
}

/** Bytes idle sessions keep in Redis, per session. */
export interface SessionBytes {
  readonly sessions: number;
  /** Every key of the run (`<prefix>…`: sessions, web streams, queues, dedupe records) over the sessions, in bytes. */
  readonly all: number;
  /**
   * The same without the session's history: its event log (`…:s:<id>:log`), its model history
   * (`…:s:<id>:history`) and its web chat transcript (`…:web:<conversation id>`), in bytes.
   */
  readonly withoutHistory: number;
  /** The part of `withoutHistory` in keys no session owns (no id in the key: queue event streams, metadata), in bytes. */
  readonly shared: number;
  /** `withoutHistory` less `shared`: what each session adds beyond its history, in bytes. */
  readonly perSession: number;
  /** The largest kinds of key, bytes per session, most first, e.g. `[['s:*:log', 9000], …]`. */
  readonly byKind: readonly [string, number][];
}

async function keysMatching(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** Whether a key part is an id: it has a digit, or is long with an uppercase letter or `_` (`ses_<base32>`, a random token). */
function isId(part: string): boolean {
  return /[0-9]/.test(part) || (part.length >= 16 && /[A-Z_]/.test(part));
}

/** A key's kind: its parts after the prefix, ids replaced by `*`. */
function kindOf(key: string, prefix: string): string {
  return key.slice(prefix.length + 1).split(':').map((part) => (isId(part) ? '*' : part)).join(':');
}

/**
 * The kinds of key that are a session's history: its event log, its model history (the list; its
 * version key `s:*:histv` counts against the session), its web chat transcript.
 */
const HISTORY_KINDS = new Set(['s:*:log', 's:*:hist', 'web:*']);

/** Sums `MEMORY USAGE` of every key under `prefix`, per session (sessions counted by `<prefix>:s:<id>:…`). */
export async function sessionBytes(redis: Redis, prefix: string): Promise<SessionBytes> {
  const keys = await keysMatching(redis, `${prefix}:*`);
  const sessions = new Set<string>();
  const kinds = new Map<string, number>();
  let all = 0;
  let history = 0;
  let shared = 0;
  // One round trip for every key's size, not one per key.
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
  const sizes = (await pipeline.exec()) ?? [];
  for (const [index, key] of keys.entries()) {
    if (key.startsWith(`${prefix}:s:`)) sessions.add(key.slice(`${prefix}:s:`.length).split(':')[0] ?? '');
    const bytes = Number(sizes[index]?.[1] ?? 0);
    all += bytes;
    const kind = kindOf(key, prefix);
    kinds.set(kind, (kinds.get(kind) ?? 0) + bytes);
    if (!kind.includes('*')) shared += bytes;
    if (HISTORY_KINDS.has(kind)) history += bytes;
  }
  const count = Math.max(1, sessions.size);
  const byKind = [...kinds].map(([kind, bytes]): [string, number] => [kind, bytes / count]).sort((a, b) => b[1] - a[1]);
  const withoutHistory = (all - history) / count;
  return { sessions: sessions.size, all: all / count, withoutHistory, shared: shared / count, perSession: withoutHistory - shared / count, byKind };
}
