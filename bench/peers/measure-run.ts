/**
 * One run of `npm run bench -- --peers`: one system (switchboard or the Chat SDK bot) started in a
 * child process of its own on a fresh key prefix, then, in order: warm-up; saturation (a closed
 * loop on answers, `answered-loop.ts`) with the Redis commands, Redis CPU, the system's own CPU and
 * the Web API calls it caused; latency at a fixed open-loop rate (bench/load.ts); the SIGKILL
 * burst. The system is stopped at the end, whatever happened.
 */
import type { Redis } from 'ioredis';
import type { GcDuring } from '../gc-watch.ts';
import { openLoop, type LoopDelay } from '../load.ts';
import { commandCounts, commandsBetween, cpuNow } from '../redis-usage.ts';
import type { Summary } from '../stats.ts';
import { answeredLoop } from './answered-loop.ts';
import { killDuringBurst, type KillFigures, type KillPlan } from './kill-burst.ts';
import type { SlackAnswers } from './slack-answers.ts';
import { createSlackPoster } from './slack-events.ts';
import { createSlackTarget, type SlackTarget } from './slack-target.ts';
import { startSystem, type SystemProcess } from './system-process.ts';

/** How much load each part of a run offers. */
export interface PeerPlan {
  /** DMs (each with its one user) the warm-up, saturation and latency messages go to in turn. */
  readonly pool: number;
  /**
   * Messages sent, untimed, before the saturation run, in rounds of `pool`: at least one round, so
   * every DM's user is known to a system that caches users.
   */
  readonly warmUp: number;
  /** Messages of the saturation run, and how many are in flight at once (each sender waits for its answer). */
  readonly saturation: number;
  readonly inFlight: number;
  /** The open-loop rate of the latency run, msg/s, and its measured and warm-up messages. */
  readonly latencyRate: number;
  readonly latency: number;
  readonly latencyWarmUp: number;
  /** The SIGKILL burst (its label is the run's). */
  readonly kill: Omit<KillPlan, 'label'>;
}

/** Which system a run starts, and how. */
export interface RunSpec {
  /** Letters and digits, unique in the bench: names the run's messages and its key prefix. */
  readonly label: string;
  /** What the tables call it, e.g. `switchboard (limits as shipped)`. */
  readonly name: string;
  readonly system: 'switchboard' | 'chat-sdk';
  /** The child's entry script, and its config without `prefix`. */
  readonly script: string;
  readonly config: Readonly<Record<string, unknown>>;
}

/** Everything one run measured. */
export interface RunFigures {
  readonly spec: RunSpec;
  readonly saturation: Summary;
  /** Messages of the saturation run (the denominator of the per-message figures). */
  readonly messages: number;
  /** Redis calls per command name during the saturation run (the whole server). */
  readonly commands: [string, number][];
  /** Web API calls per method during the saturation run. */
  readonly apiCalls: [string, number][];
  /** CPU per message during the saturation run, µs: the Redis server's and the system process's own. */
  readonly redisCpuUs: number;
  readonly processCpuUs: number;
  readonly latency: Summary & LoopDelay & GcDuring;
  readonly kill: KillFigures;
  /** Events of the warm-up, saturation and latency runs that Slack would have delivered again (no 2xx the first time). */
  readonly redeliveries: number;
}

/** What every run shares: the bench's Redis, a command connection to it, the fake Slack's watcher, the signing secret. */
export interface RunContext {
  readonly redisUrl: string;
  readonly redis: Redis;
  readonly answers: SlackAnswers;
  readonly signingSecret: string;
}

/** Calls per method between two readings, most first. */
function callsBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): [string, number][] {
  return [...after]
    .map(([method, calls]): [string, number] => [method, calls - (before.get(method) ?? 0)])
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1]);
}

/** The child config of a run of `spec`: its own config on a fresh key prefix. */
export function runConfig(spec: RunSpec): Readonly<Record<string, unknown>> {
  return { ...spec.config, prefix: `bench-peers-${spec.label}-${Date.now().toString(36)}` };
}

/**
 * The plan's warm-up on `target`, labelled after `label`: in rounds of the pool, each answered
 * before the next, so a DM never gets its next message while the last may still be handled (the
 * Chat SDK drops such a message).
 */
export async function warmUp(target: SlackTarget, plan: PeerPlan, label: string): Promise<void> {
  for (let round = 0; round * plan.pool < plan.warmUp; round += 1) {
    await answeredLoop(target, `${label}w${String(round)}`, Math.min(plan.pool, plan.warmUp - round * plan.pool), plan.inFlight);
  }
}

/** Runs `spec` through the plan. */
export async function measureRun(spec: RunSpec, plan: PeerPlan, context: RunContext): Promise<RunFigures> {
  const { redis, answers } = context;
  const config = runConfig(spec);
  const start = (): Promise<SystemProcess> => startSystem(spec.script, config);
  let system = await start();
  const poster = createSlackPoster(system.url, context.signingSecret);
  const target = createSlackTarget(poster, answers, plan.pool);
  answers.clear();
  try {
    await warmUp(target, plan, spec.label);
    // In this order, the only reading inside the window is the first `commandCounts`, which
    // `commandsBetween` leaves out.
    const redisBefore = await cpuNow(redis);
    const commandsBefore = await commandCounts(redis);
    const processBefore = await system.cpuUs();
    const callsBefore = answers.callsByMethod();
    const messages = plan.saturation;
    const saturation = await answeredLoop(target, `${spec.label}s`, messages, plan.inFlight);
    const processAfter = await system.cpuUs();
    const commands = commandsBetween(commandsBefore, await commandCounts(redis));
    const redisAfter = await cpuNow(redis);
    const apiCalls = callsBetween(callsBefore, answers.callsByMethod());
    const latency = await openLoop(target, `${spec.label}l`, plan.latencyRate, plan.latency, plan.latencyWarmUp);
    const killed = await killDuringBurst({ ...plan.kill, label: `${spec.label}k` }, system, start, poster, answers);
    system = killed.system;
    return {
      spec,
      saturation,
      messages,
      commands,
      apiCalls,
      redisCpuUs: (redisAfter.redisUs - redisBefore.redisUs) / messages,
      processCpuUs: (processAfter - processBefore) / messages,
      latency,
      kill: killed.figures,
      redeliveries: target.redeliveries(),
    };
  } finally {
    await target.close();
    poster.close();
    await system.stop();
  }
}
