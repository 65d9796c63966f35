/**
 * The bench's measurements, one function each. Every one starts what it measures under a key
 * prefix of its own, warms it up, measures, and closes all it started, even when it fails.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createBaselineTarget, startBaselineHops } from './baseline.ts';
import { startChildren, stopChildren } from './children.ts';
import { closedLoop, openLoop, roundsOfTurns, saturate, type LoopDelay, type Saturation, type Target } from './load.ts';
import { sessionBytes, usageMeter, type CpuPerMessage, type SessionBytes, type UsageMeter } from './redis-usage.ts';
import type { GcDuring } from './gc-watch.ts';
import { median, type Summary } from './stats.ts';
import { createA2aTarget, createSwitchboardTarget, startSwitchboard } from './switchboard.ts';

const BENCH_WORKER = fileURLToPath(new URL('./bench-worker.ts', import.meta.url));
const BASELINE_WORKER = fileURLToPath(new URL('./baseline-worker.ts', import.meta.url));

/** How much load each measurement offers. */
export interface Plan {
  /** Conversations (concurrent senders) of the throughput runs. */
  readonly conversations: number;
  /** Conversations the open-loop arrivals are spread over (others than the throughput runs'). */
  readonly latencyConversations: number;
  /** Closed-loop messages sent, untimed, before a throughput run. */
  readonly warmUp: number;
  /** Messages of each saturation run. */
  readonly saturation: number;
  /** Saturation runs whose median is taken (it resists one run slowed by another process on the machine). */
  readonly repeats: number;
  /** Open-loop messages whose latency is measured, after `latencyWarmUp` more. */
  readonly latency: number;
  readonly latencyWarmUp: number;
  /** Share of the saturation throughput offered in the latency run (0.5: half load). */
  readonly loadShare: number;
  /** Conversations and turns each of the idle-session run. */
  readonly idleConversations: number;
  readonly idleTurns: number;
  /** How long the idle-session run waits after its last answer, ms. */
  readonly idleWaitMs: number;
}

/** Saturation, then latency at a share of it, of one system in one process. */
export interface SystemFigures {
  readonly saturation: Saturation;
  /** Calls per command name during the saturation runs (`saturation.messages` messages). */
  readonly commands: [string, number][];
  /** CPU time per message during the saturation runs, in microseconds: Redis's, and this process's (load and system). */
  readonly cpu: CpuPerMessage;
  /** The open-loop rate offered, msg/s. */
  readonly offered: number;
  readonly latency: Summary & LoopDelay & GcDuring;
  /** Switchboard only: the A2A path of the same service, measured right after `latency`. */
  readonly a2a?: A2aFigures;
}

/**
 * The A2A `SendMessage` path (one JSON-RPC call as the app's peer, a new task each, answered once
 * the turn settled): its saturation with `plan.conversations` calls under way, then its round trip
 * in an open loop at `plan.loadShare` of that saturation.
 */
export interface A2aFigures {
  /** msg/s, one closed-loop run of `plan.saturation` calls. */
  readonly saturation: number;
  /** The open-loop rate offered, msg/s. */
  readonly offered: number;
  readonly latency: Summary & LoopDelay & GcDuring;
}

let runs = 0;

/** A key prefix no other run of this bench (nor an earlier bench on this Redis) uses. */
function freshPrefix(kind: string): string {
  runs += 1;
  return `bench-${kind}-${Date.now().toString(36)}-${runs}`;
}

/** Runs `body` with a list of closers, closed in reverse order afterwards, whatever happened. */
async function withCleanup<T>(body: (defer: (close: () => Promise<void>) => void) => Promise<T>): Promise<T> {
  const closers: (() => Promise<void>)[] = [];
  try {
    return await body((close) => closers.push(close));
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

/** One system under the side-by-side measurement: its two targets and what its runs cost. */
interface Contender {
  /** The closed-loop runs' conversations. */
  readonly target: Target;
  /** The open-loop run's conversations (others, so their histories start short). */
  readonly paced: Target;
  readonly meter: UsageMeter;
  readonly runs: number[];
}

/** Both systems' figures, measured side by side. */
export interface SideBySide {
  readonly baseline: SystemFigures;
  readonly switchboard: SystemFigures;
}

/** The saturation run of `contender` numbered `run`, its throughput kept with its commands and CPU. */
async function saturationRun(contender: Contender, plan: Plan, run: number): Promise<void> {
  const summary = await contender.meter.around(() => closedLoop(contender.target, `sat${run}`, plan.saturation));
  contender.runs.push(summary.throughput);
}

/** Saturation figures of `contender` after its runs, and its open-loop latency at `plan.loadShare` of them. */
async function figuresOf(contender: Contender, plan: Plan): Promise<SystemFigures> {
  const { runs } = contender;
  const messages = plan.saturation * runs.length;
  const saturation: Saturation = { throughput: median(runs), runs, messages };
  const offered = saturation.throughput * plan.loadShare;
  await sleep(300);
  const latency = await openLoop(contender.paced, 'open', offered, plan.latency, plan.latencyWarmUp);
  return { saturation, commands: contender.meter.commands(), cpu: contender.meter.cpu(messages), offered, latency };
}

/**
 * The baseline (hop workers in this process) and switchboard (every role in this process) side by
 * side: both started and warmed up, then `plan.repeats` pairs of saturation runs, the two systems
 * taking turns (the first of a pair alternating), so a change in the machine's load meets both
 * alike; then each one's latency at `plan.loadShare` of its saturation, and switchboard's A2A
 * path: its saturation and its round trip at `plan.loadShare` of it. Each system's commands and
 * CPU are counted over its own runs only.
 */
export async function measureSideBySide(redisUrl: string, plan: Plan): Promise<SideBySide> {
  return withCleanup(async (defer) => {
    const basePrefix = freshPrefix('base');
    defer(await startBaselineHops(redisUrl, basePrefix));
    const sbPrefix = freshPrefix('sb');
    const service = await startSwitchboard({ redisUrl, prefix: sbPrefix, role: 'all' });
    defer(() => service.close());
    const redis = new Redis(redisUrl);
    defer(() => redis.quit().then(() => undefined));
    const opened = async (open: Promise<Target>): Promise<Target> => {
      const target = await open;
      defer(() => target.close());
      return target;
    };
    const contender = async (open: (conversations: number, label: string) => Promise<Target>): Promise<Contender> => ({
      target: await opened(open(plan.conversations, 'sat')),
      paced: await opened(open(plan.latencyConversations, 'open')),
      meter: usageMeter(redis),
      runs: [],
    });
    const baseline = await contender((conversations, label) => createBaselineTarget(redisUrl, basePrefix, conversations, label));
    const switchboard = await contender((conversations, label) => createSwitchboardTarget(service.url ?? '', redisUrl, sbPrefix, conversations, label));
    await closedLoop(baseline.target, 'warm', plan.warmUp);
    await closedLoop(switchboard.target, 'warm', plan.warmUp);
    for (let run = 0; run < plan.repeats; run += 1) {
      const pair = run % 2 === 0 ? [baseline, switchboard] : [switchboard, baseline];
      for (const each of pair) await saturationRun(each, plan, run);
    }
    const baseFigures = await figuresOf(baseline, plan);
    const sbFigures = await figuresOf(switchboard, plan);
    const a2a = await a2aFigures(service.url ?? '', plan, defer);
    return { baseline: baseFigures, switchboard: { ...sbFigures, a2a } };
  });
}

/** The A2A path of the service at `url`: its saturation, then its round trip at `plan.loadShare` of it. */
async function a2aFigures(url: string, plan: Plan, defer: (close: () => Promise<void>) => void): Promise<A2aFigures> {
  const callers = createA2aTarget(url, plan.conversations);
  defer(() => callers.close());
  await closedLoop(callers, 'a2a-warm', plan.warmUp);
  const saturation = (await closedLoop(callers, 'a2a-sat', plan.saturation)).throughput;
  const offered = saturation * plan.loadShare;
  const paced = createA2aTarget(url);
  defer(() => paced.close());
  await sleep(300);
  return { saturation, offered, latency: await openLoop(paced, 'a2a', offered, plan.latency, plan.latencyWarmUp) };
}

/** What idle sessions keep after exactly `plan.idleTurns` turns each, on a service of their own. */
export async function measureIdleSessions(redisUrl: string, plan: Plan): Promise<SessionBytes> {
  return withCleanup(async (defer) => {
    const prefix = freshPrefix('idle');
    const service = await startSwitchboard({ redisUrl, prefix, role: 'all' });
    defer(() => service.close());
    const target = await createSwitchboardTarget(service.url ?? '', redisUrl, prefix, plan.idleConversations);
    defer(() => target.close());
    await roundsOfTurns(target, 'idle', plan.idleTurns);
    // Idle: every turn settled and delivered; what stays is what each session keeps.
    await sleep(plan.idleWaitMs);
    const redis = new Redis(redisUrl);
    defer(() => redis.quit().then(() => undefined));
    return sessionBytes(redis, prefix);
  });
}

/** Saturation throughput of switchboard with the web role in this process and `workers` worker processes. */
export async function switchboardWithWorkers(redisUrl: string, plan: Plan, workers: number): Promise<Saturation> {
  return withCleanup(async (defer) => {
    const prefix = freshPrefix(`sbw${workers}`);
    const service = await startSwitchboard({ redisUrl, prefix, role: 'web' });
    defer(() => service.close());
    const children = await startChildren(BENCH_WORKER, { redisUrl, prefix }, workers);
    defer(() => stopChildren(children));
    const target = await createSwitchboardTarget(service.url ?? '', redisUrl, prefix, plan.conversations);
    defer(() => target.close());
    await closedLoop(target, 'warm', plan.warmUp);
    return saturate(target, plan.saturation, plan.repeats);
  });
}

/** Saturation throughput of the baseline with its hop workers in `workers` processes. */
export async function baselineWithWorkers(redisUrl: string, plan: Plan, workers: number): Promise<Saturation> {
  return withCleanup(async (defer) => {
    const prefix = freshPrefix(`basew${workers}`);
    const children = await startChildren(BASELINE_WORKER, { redisUrl, prefix }, workers);
    defer(() => stopChildren(children));
    const target = await createBaselineTarget(redisUrl, prefix, plan.conversations);
    defer(() => target.close());
    await closedLoop(target, 'warm', plan.warmUp);
    return saturate(target, plan.saturation, plan.repeats);
  });
}
