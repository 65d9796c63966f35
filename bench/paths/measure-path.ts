/**
 * One path of `npm run bench -- --paths`: its fakes and a switchboard of its own (fresh key prefix)
 * started, an idle window (what the service costs Redis with nothing to do), then messages at a
 * fixed rate, open loop: a warm-up, the measured ones, and a tail. The counters are read just
 * before the first measured message is sent and just before the first of the tail, so the window
 * holds the sends of the measured messages in a steady state: the work the window sees is that of
 * as many messages as it sends, whatever is still in flight at its edges. Every message sent must
 * be answered before the path counts.
 */
import { Redis } from 'ioredis';
import { commandCounts, commandsBetween, type CommandCounts } from '../redis-usage.ts';
import type { ChannelPath, RunningPath } from './channel-path.ts';
import { watchRedisWrites, type RedisWrites } from './redis-writes.ts';
import { startChannelService } from './service.ts';

/** The load of each path. */
export interface PathPlan {
  /** Messages a second, the same for every path. */
  readonly rate: number;
  readonly warmUp: number;
  readonly measured: number;
  readonly tail: number;
  /** Senders (conversations) the messages rotate over. */
  readonly senders: number;
  /** The idle window, ms. */
  readonly idleMs: number;
}

/** What one path measured. */
export interface PathFigures {
  readonly path: ChannelPath;
  /** Messages sent in the window. */
  readonly messages: number;
  /** Redis calls per command name in the window (the whole server). */
  readonly commands: [string, number][];
  /** Socket writes of the service's Redis connections in the window. */
  readonly roundTrips: number;
  /** The service's connections to Redis. */
  readonly connections: number;
  /** Provider API calls in the window (`undefined`: no provider). */
  readonly providerCalls: number | undefined;
  /** Redis commands a second while the service was idle. */
  readonly idleCommandsPerSecond: number;
  /** The rate the window's messages were sent at, msg/s. */
  readonly sentRate: number;
  /** The plan the path ran (the common one, or its own load). */
  readonly plan: PathPlan;
}

/** How long the answers may take after the last send, ms: generous, so only a stuck path fails. */
const ANSWER_DEADLINE_MS = 60_000;

interface Reading {
  readonly commands: CommandCounts;
  readonly writes: number;
  readonly calls: number | undefined;
  readonly at: number;
}

const total = (commands: readonly [string, number][]): number => commands.reduce((sum, [, calls]) => sum + calls, 0);
const waitUntil = (at: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

/** Resolves once every key of `keys` was answered; rejects after the deadline, naming how many were. */
function allAnswered(running: RunningPath, keys: readonly string[]): { readonly done: Promise<void>; readonly count: () => number } {
  const waiting = new Set(keys);
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((settle) => { resolve = settle; });
  running.listen((key) => {
    waiting.delete(key);
    if (waiting.size === 0) resolve();
  });
  return { done, count: () => keys.length - waiting.size };
}

async function answeredInTime(answers: ReturnType<typeof allAnswered>, expected: number, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => { reject(new Error(`${name}: only ${answers.count()} of ${expected} messages answered`)); }, ANSWER_DEADLINE_MS);
  });
  try {
    await Promise.race([answers.done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The plan of `path`: the common one, or the path's own load. */
function planOf(path: ChannelPath, plan: PathPlan): PathPlan {
  return path.load === undefined ? plan : { ...plan, ...path.load };
}

async function sendAll(path: ChannelPath, running: RunningPath, plan: PathPlan, read: () => Promise<Reading>): Promise<{ readonly from: Reading; readonly to: Reading }> {
  const count = plan.warmUp + plan.measured + plan.tail;
  const keys = Array.from({ length: count }, (_, index) => `${path.label}x${index}`);
  const answers = allAnswered(running, keys);
  const sends: Promise<void>[] = [];
  let from: Reading | undefined;
  let to: Reading | undefined;
  const start = performance.now();
  for (const [index, key] of keys.entries()) {
    await waitUntil(start + (index * 1000) / plan.rate);
    if (index === plan.warmUp) from = await read();
    if (index === plan.warmUp + plan.measured) to = await read();
    sends.push(running.send(key, index % plan.senders));
  }
  await Promise.all(sends);
  await answeredInTime(answers, count, path.name);
  if (from === undefined || to === undefined) throw new Error(`${path.name}: the window was never read`);
  return { from, to };
}

/** Measures `path` on the Redis at `redisUrl`. */
export async function measurePath(path: ChannelPath, redisUrl: string, common: PathPlan): Promise<PathFigures> {
  const plan = planOf(path, common);
  // The bench's own connections are made before the watch starts, so only the service's count.
  const redis = new Redis(redisUrl);
  const subscriber = new Redis(redisUrl);
  let writes: RedisWrites | undefined;
  let running: RunningPath | undefined;
  try {
    await Promise.all([redis.ping(), subscriber.ping()]);
    writes = watchRedisWrites(Number(new URL(redisUrl).port));
    const counted = writes;
    const prefix = `bench-paths-${path.label}-${Date.now().toString(36)}`;
    const started = await path.start({
      prefix,
      redis,
      subscriber,
      startService: (variables, channels, appDir) => startChannelService({ redisUrl, prefix, variables, channels, ...(appDir === undefined ? {} : { appDir }) }),
    });
    running = started;
    const read = async (): Promise<Reading> => ({ commands: await commandCounts(redis), writes: counted.count(), calls: started.providerCalls(), at: performance.now() });
    const idleFrom = await read();
    await waitUntil(idleFrom.at + plan.idleMs);
    const idleTo = await read();
    const idleCommandsPerSecond = (total(commandsBetween(idleFrom.commands, idleTo.commands)) * 1000) / (idleTo.at - idleFrom.at);
    const { from, to } = await sendAll(path, started, plan, read);
    return {
      path,
      messages: plan.measured,
      commands: commandsBetween(from.commands, to.commands),
      roundTrips: to.writes - from.writes,
      connections: counted.connections(),
      providerCalls: from.calls === undefined || to.calls === undefined ? undefined : to.calls - from.calls,
      idleCommandsPerSecond,
      sentRate: (plan.measured * 1000) / (to.at - from.at),
      plan,
    };
  } finally {
    await running?.close();
    writes?.stop();
    await redis.quit();
    await subscriber.quit();
  }
}
