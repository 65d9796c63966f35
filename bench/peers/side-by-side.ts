/**
 * Saturation of both systems side by side: switchboard and the Chat SDK bot started together, each
 * in its own child process, both warmed up, then `pairs` pairs of saturation runs, the two taking
 * turns (which one goes first alternates), so a slower spell of the shared machine meets both
 * runs of a pair. The system not running is idle meanwhile. The throughput target is judged on the
 * median of the pairs' ratios: a single run of 1,000 events lasts well under a second, and two
 * such runs minutes apart differed by 30% on this machine.
 */
import { pairedRatios } from '../stats.ts';
import { answeredLoop } from './answered-loop.ts';
import { runConfig, warmUp, type PeerPlan, type RunContext, type RunSpec } from './measure-run.ts';
import { createSlackPoster, type SlackPoster } from './slack-events.ts';
import { createSlackTarget, type SlackTarget } from './slack-target.ts';
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

/**
 * Runs `drive` on a target of `contender`'s own for the time it takes: the fake Slack's answers go
 * to one listener at a time, and the other system's target must not take them.
 */
async function onTarget<T>(contender: Contender, plan: PeerPlan, context: RunContext, drive: (target: SlackTarget) => Promise<T>): Promise<T> {
  const target = createSlackTarget(contender.poster, context.answers, plan.pool);
  try {
    return await drive(target);
  } finally {
    await target.close();
  }
}

async function start(spec: RunSpec, context: RunContext): Promise<Contender> {
  const system = await startSystem(spec.script, runConfig(spec));
  return { spec, system, poster: createSlackPoster(system.url, context.signingSecret), throughputs: [] };
}

/** Runs `pairs` side-by-side pairs of saturation runs of `switchboard` and `chatSdk`. */
export async function saturationSideBySide(switchboard: RunSpec, chatSdk: RunSpec, plan: PeerPlan, context: RunContext, pairs: number): Promise<PairedSaturation> {
  const started: Contender[] = [];
  try {
    for (const spec of [switchboard, chatSdk]) started.push(await start(spec, context));
    const [ours, theirs] = started as [Contender, Contender];
    for (const contender of started) await onTarget(contender, plan, context, (target) => warmUp(target, plan, contender.spec.label));
    for (let pair = 0; pair < pairs; pair += 1) {
      for (const contender of pair % 2 === 0 ? [ours, theirs] : [theirs, ours]) {
        const run = `${contender.spec.label}p${String(pair)}`;
        const { throughput } = await onTarget(contender, plan, context, (target) => answeredLoop(target, run, plan.saturation, plan.inFlight));
        contender.throughputs.push(throughput);
      }
    }
    const ratios = pairedRatios(ours.throughputs, theirs.throughputs);
    return { switchboard: ours.throughputs, chatSdk: theirs.throughputs, ratios: ratios.each, medianRatio: ratios.median };
  } finally {
    for (const contender of started) {
      contender.poster.close();
      await contender.system.stop();
    }
  }
}
