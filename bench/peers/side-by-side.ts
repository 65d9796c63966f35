/**
 * Saturation of both systems side by side: switchboard and the Chat SDK bot started together, each
 * in its own child process, both warmed up, then `pairs` pairs of saturation runs, the two taking
 * turns (which one goes first alternates), so a slower spell of the shared machine meets both
 * runs of a pair. The system not running is idle meanwhile. The throughput target is judged on the
 * median of the pairs' ratios: a single run of 1,000 events lasts well under a second, and two
 * such runs minutes apart differed by 30% on this machine.
 */
import { median } from '../stats.ts';
import { answeredLoop } from './answered-loop.ts';
import type { PeerPlan, RunContext, RunSpec } from './measure-run.ts';
import { createSlackPoster, type SlackPoster } from './slack-events.ts';
import { createSlackTarget } from './slack-target.ts';
import { startSystem, type SystemProcess } from './system-process.ts';

/** What the side-by-side runs measured: each run's throughput (msg/s), in order, and the pairs' ratios. */
export interface PairedSaturation {
  readonly switchboard: readonly number[];
  readonly chatSdk: readonly number[];
  /** Switchboard's throughput over the Chat SDK's, per pair. */
  readonly ratios: readonly number[];
  readonly medianRatio: number;
}

/** One of the two systems, started. */
interface Contender {
  readonly spec: RunSpec;
  readonly system: SystemProcess;
  readonly poster: SlackPoster;
  readonly throughputs: number[];
}

/** Sends `messages` events to `contender` with the plan's senders in flight; its throughput, msg/s. */
async function saturate(contender: Contender, plan: PeerPlan, context: RunContext, run: string, messages: number): Promise<number> {
  // A target per run: the fake Slack's answers go to one listener at a time.
  const target = createSlackTarget(contender.poster, context.answers, plan.pool);
  try {
    return (await answeredLoop(target, run, messages, plan.inFlight)).throughput;
  } finally {
    await target.close();
  }
}

async function start(spec: RunSpec, context: RunContext): Promise<Contender> {
  const system = await startSystem(spec.script, { ...spec.config, prefix: `bench-peers-${spec.label}-${Date.now().toString(36)}` });
  return { spec, system, poster: createSlackPoster(system.url, context.signingSecret), throughputs: [] };
}

async function warmUp(contender: Contender, plan: PeerPlan, context: RunContext): Promise<void> {
  // In rounds of the pool, as in a run: every DM's user becomes known, and no DM has two messages at once.
  for (let round = 0; round * plan.pool < plan.warmUp; round += 1) {
    await saturate(contender, plan, context, `${contender.spec.label}w${String(round)}`, Math.min(plan.pool, plan.warmUp - round * plan.pool));
  }
}

/** Runs `pairs` side-by-side pairs of saturation runs of `switchboard` and `chatSdk`. */
export async function saturationSideBySide(switchboard: RunSpec, chatSdk: RunSpec, plan: PeerPlan, context: RunContext, pairs: number): Promise<PairedSaturation> {
  const started: Contender[] = [];
  try {
    for (const spec of [switchboard, chatSdk]) started.push(await start(spec, context));
    const [ours, theirs] = started as [Contender, Contender];
    for (const contender of started) await warmUp(contender, plan, context);
    for (let pair = 0; pair < pairs; pair += 1) {
      for (const contender of pair % 2 === 0 ? [ours, theirs] : [theirs, ours]) {
        contender.throughputs.push(await saturate(contender, plan, context, `${contender.spec.label}p${String(pair)}`, plan.saturation));
      }
    }
    const ratios = ours.throughputs.map((throughput, index) => throughput / (theirs.throughputs[index] ?? Number.NaN));
    return { switchboard: ours.throughputs, chatSdk: theirs.throughputs, ratios, medianRatio: median(ratios) };
  } finally {
    for (const contender of started) {
      contender.poster.close();
      await contender.system.stop();
    }
  }
}
