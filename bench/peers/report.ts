/**
 * How `npm run bench -- --peers` prints: the side-by-side saturation pairs, one markdown table per
 * run as it ends, then every run's figures together and the targets: throughput judged on the
 * pairs' median ratio, latency of each switchboard run against the nearest Chat SDK run (the next
 * one, else the one before).
 */
import { perMessage } from '../redis-usage.ts';
import type { PeerPlan, RunFigures } from './measure-run.ts';
import type { PairedSaturation } from './side-by-side.ts';

/** Targets of the Slack path beside the Chat SDK. */
export const PEER_TARGETS = { throughputRatio: 1.0, p50WithinMs: 2 } as const;

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Prints `rows` (the first is the header) as a markdown table. */
export function printTable(rows: readonly (readonly string[])[]): void {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(3, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]): string => `| ${widths.map((width, column) => (row[column] ?? '').padEnd(width)).join(' | ')} |`;
  const [header, ...body] = rows;
  out(line(header ?? []));
  out(line(widths.map((width) => '-'.repeat(width))));
  for (const row of body) out(line(row));
}

/** The figures of one run, one string each, in the order of {@link figureNames}. */
function figureValues(run: RunFigures): string[] {
  const { saturation, latency, kill } = run;
  const calls = run.apiCalls.reduce((sum, [, count]) => sum + count, 0) / run.messages;
  const named = run.apiCalls.map(([method, count]) => `${(count / run.messages).toFixed(2)} ${method}`).join(', ');
  return [
    `${saturation.throughput.toFixed(0)} (${run.messages} events)`,
    `${latency.p50.toFixed(1)} / ${latency.p99.toFixed(1)} (achieved ${latency.throughput.toFixed(1)} msg/s)`,
    perMessage(run.commands, run.messages, 4),
    `${run.processCpuUs.toFixed(0)} / ${run.redisCpuUs.toFixed(0)}`,
    `${calls.toFixed(2)} (${named})`,
    `${kill.ackedFirst} acked, ${kill.retried} redelivered (${kill.retries} redeliveries), ${kill.neverAcked} never acked`,
    `${kill.lost} / ${kill.twice}`,
    `${(kill.downMs / 1000).toFixed(1)} s / ${(kill.recoveryMs / 1000).toFixed(1)} s`,
    String(run.redeliveries),
  ];
}

function figureNames(plan: PeerPlan): string[] {
  const { kill } = plan;
  return [
    `Saturation throughput: DM events over ${plan.pool} DMs, ${plan.inFlight} in flight, each sender waiting for its answer (msg/s)`,
    `Latency p50 / p99 at ${plan.latencyRate} msg/s open loop, POST sent -> chat.postMessage at the fake (ms; ${plan.latency} measured after ${plan.latencyWarmUp})`,
    'Redis commands per message (saturation run, whole server)',
    'CPU per message, system process / Redis server (µs, saturation run)',
    'Slack Web API calls per message (saturation run)',
    `SIGKILL burst: ${kill.events} events (one DM each) at ${kill.rate}/s, kill after ${kill.killAfter}`,
    'Lost / answered twice',
    'Down (kill -> ready) / recovery (ready -> last answer)',
    'Events redelivered outside the burst (no 2xx on a first delivery)',
  ];
}

const list = (values: readonly number[], digits: number): string => values.map((value) => value.toFixed(digits)).join(', ');

/** Prints the side-by-side saturation runs and the median of their ratios. */
export function printPairedSaturation(paired: PairedSaturation, plan: PeerPlan): void {
  out();
  out(`Saturation side by side (both systems started and warmed up, then ${paired.ratios.length} pairs of runs of ${plan.saturation} events, ${plan.inFlight} in flight, taking turns; msg/s):`);
  out(`  switchboard (Slack limits lifted)  ${list(paired.switchboard, 0)}`);
  out(`  Chat SDK                           ${list(paired.chatSdk, 0)}`);
  out(`  ratio per pair                     ${list(paired.ratios, 2)}: median ${paired.medianRatio.toFixed(2)}x`);
}

/** Prints one run's table. */
export function printRun(run: RunFigures, plan: PeerPlan): void {
  out();
  const values = figureValues(run);
  printTable([['Figure', run.spec.name], ...figureNames(plan).map((name, index) => [name, values[index] ?? ''])]);
}

/** One switchboard run and the Chat SDK run it is judged against. */
interface Pair {
  readonly switchboard: RunFigures;
  readonly chatSdk: RunFigures;
}

function pairs(runs: readonly RunFigures[]): Pair[] {
  const found: Pair[] = [];
  runs.forEach((run, index) => {
    if (run.spec.system !== 'switchboard') return;
    const isPeer = (other: RunFigures | undefined): other is RunFigures => other?.spec.system === 'chat-sdk';
    const next = runs[index + 1];
    const previous = runs[index - 1];
    const peer = isPeer(next) ? next : isPeer(previous) ? previous : undefined;
    if (peer !== undefined) found.push({ switchboard: run, chatSdk: peer });
  });
  return found;
}

const yes = (met: boolean): string => (met ? 'yes' : 'no');

/** Prints every run side by side, then the targets: throughput on the side-by-side pairs, latency per run. */
export function printPeerSummary(runs: readonly RunFigures[], plan: PeerPlan, paired: PairedSaturation): void {
  if (runs.length === 0) return;
  out();
  out('Summary (markdown):');
  out();
  const values = runs.map(figureValues);
  printTable([['Figure', ...runs.map((run) => run.spec.name)], ...figureNames(plan).map((name, index) => [name, ...values.map((column) => column[index] ?? '')])]);
  out();
  const rows: string[][] = [['Target', 'Switchboard run', 'Figure (switchboard vs Chat SDK)', 'Met?']];
  rows.push([
    `Throughput >= ${PEER_TARGETS.throughputRatio.toFixed(1)}x Chat SDK`,
    'side by side',
    `${paired.medianRatio.toFixed(2)}x, the median of ${list(paired.ratios, 2)}`,
    yes(paired.medianRatio >= PEER_TARGETS.throughputRatio),
  ]);
  for (const { switchboard, chatSdk } of pairs(runs)) {
    const gap = switchboard.latency.p50 - chatSdk.latency.p50;
    rows.push([`p50 at ${plan.latencyRate} msg/s within ${PEER_TARGETS.p50WithinMs} ms of Chat SDK`, switchboard.spec.name, `${gap >= 0 ? '+' : ''}${gap.toFixed(1)} ms (${switchboard.latency.p50.toFixed(1)} vs ${chatSdk.latency.p50.toFixed(1)} ms)`, yes(gap <= PEER_TARGETS.p50WithinMs)]);
  }
  for (const run of runs) {
    rows.push(['0 lost / 0 twice under SIGKILL', run.spec.name, `${run.kill.lost} lost / ${run.kill.twice} twice`, yes(run.kill.lost === 0 && run.kill.twice === 0)]);
  }
  printTable(rows);
}
