/**
 * How the bench prints its figures: a section per figure as it is measured, then a summary table
 * in markdown (paste it into `bench/RESULTS.md`).
 */
import { commandsPerMessage, perMessage, type SessionBytes } from './redis-usage.ts';
import type { Saturation } from './load.ts';
import type { Plan, SystemFigures } from './phases.ts';
import { pairedRatios } from './stats.ts';

/** Targets of issue 12. */
export const TARGETS = { throughputRatio: 0.6, p50Ms: 5, p99Ms: 25, commandsRatio: 1.3, idleBytes: 4096, twoWorkers: 1.5 } as const;

/** Throughput with N worker processes. */
export interface Scaling {
  readonly workers: number;
  readonly switchboard: Saturation;
  /** Absent when the baseline was not measured this way. */
  readonly baseline?: Saturation;
}

/** Everything one run measured (what failed or was skipped stays undefined). */
export interface Figures {
  /** `os.availableParallelism()` of the machine. */
  readonly cores: number;
  baseline?: SystemFigures;
  switchboard?: SystemFigures;
  idle?: SessionBytes;
  scaling: Scaling[];
}

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const msgs = (rate: number): string => `${rate.toFixed(0)} msg/s`;
const ms = (value: number): string => `${value.toFixed(1)} ms`;
const yes = (met: boolean): string => (met ? 'yes' : 'no');
/** A median throughput with the spread of its runs, e.g. `817 msg/s (runs 790-830)`. */
const spread = (saturation: Saturation): string =>
  `${msgs(saturation.throughput).padStart(11)} (runs ${Math.min(...saturation.runs).toFixed(0)}-${Math.max(...saturation.runs).toFixed(0)})`;

/** Switchboard's saturation throughput over the baseline's, pair by pair ({@link pairedRatios}). */
const throughputRatios = (baseline: SystemFigures, switchboard: SystemFigures): { median: number; each: number[] } =>
  pairedRatios(switchboard.saturation.runs, baseline.saturation.runs);

/** Redis commands per message of a system's saturation runs. */
const commandsOf = (figures: SystemFigures): number => commandsPerMessage(figures.commands, figures.saturation.messages);

/** Prints figures 1 to 3 once both systems were measured. */
export function printSystems(baseline: SystemFigures, switchboard: SystemFigures, plan: Plan): void {
  const ratio = throughputRatios(baseline, switchboard);
  out(`1. Saturation throughput, 1 process (closed loop: ${plan.conversations} conversations, each posting its next message once the last was accepted; median of ${plan.repeats} runs of ${plan.saturation} messages each, the two systems taking turns, after ${plan.warmUp} warm-up)`);
  out(`   baseline      ${spread(baseline.saturation)}`);
  out(`   switchboard   ${spread(switchboard.saturation)}`);
  out(`   ratio         ${ratio.median.toFixed(2)}x baseline, the median of the side-by-side runs' ${ratio.each.map((each) => each.toFixed(2)).join(', ')} (target at least ${TARGETS.throughputRatio}x)`);
  out(`2. Framework latency at ${(plan.loadShare * 100).toFixed(0)}% of each one's saturation (open loop: arrivals on a fixed schedule over ${plan.latencyConversations} other conversations; POST sent -> response part delivered; model time excluded)`);
  for (const [name, figures] of [['baseline   ', baseline], ['switchboard', switchboard]] as const) {
    const { latency, offered } = figures;
    out(`   ${name}   offered ${msgs(offered)}, achieved ${msgs(latency.throughput)}, ${latency.measured} measured after ${plan.latencyWarmUp} warm-up: p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)} (this process's event-loop delay p99 ${ms(latency.loopDelayP99)}, max ${ms(latency.loopDelayMax)}; garbage collections ${latency.majorGcs} full + ${latency.minorGcs} young, longest pause ${ms(latency.gcPauseMax)}, all pauses ${ms(latency.gcPauseTotal)})`);
  }
  out(`   target: p50 <= ${TARGETS.p50Ms} ms, p99 <= ${TARGETS.p99Ms} ms`);
  const { a2a } = switchboard;
  if (a2a !== undefined) {
    const { latency } = a2a;
    out(`   A2A on the same service (one JSON-RPC SendMessage per message as the app's peer, a new task each; sent -> answer with the settled task; model time excluded): saturation with ${plan.conversations} calls under way, then the round trip at ${(plan.loadShare * 100).toFixed(0)}% of it (open loop)`);
    out(`   a2a           saturation ${msgs(a2a.saturation)} (${(a2a.saturation / switchboard.saturation.throughput).toFixed(2)}x the web chat's); offered ${msgs(a2a.offered)}, achieved ${msgs(latency.throughput)}, ${latency.measured} measured after ${plan.latencyWarmUp} warm-up: p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)} (event-loop delay p99 ${ms(latency.loopDelayP99)}, max ${ms(latency.loopDelayMax)}; garbage collections ${latency.majorGcs} full + ${latency.minorGcs} young, longest pause ${ms(latency.gcPauseMax)})`);
    if (latency.throughput < 0.95 * a2a.offered) out('   note: the A2A calls did not keep up with the offered rate, so the backlog, not the round trip alone, sets their latency');
  }
  out('3. Redis commands per message (INFO commandstats around the saturation runs, the whole server)');
  out(`   baseline      ${perMessage(baseline.commands, baseline.saturation.messages)}`);
  out(`   switchboard   ${perMessage(switchboard.commands, switchboard.saturation.messages)}`);
  out(`   ratio ${(commandsOf(switchboard) / commandsOf(baseline)).toFixed(2)}x (target at most ${TARGETS.commandsRatio}x)`);
  out('   CPU per message during the saturation runs: Redis server | this process (load generator and system under test)');
  for (const [name, figures] of [['baseline   ', baseline], ['switchboard', switchboard]] as const) {
    out(`   ${name}   ${figures.cpu.redisUs.toFixed(0).padStart(5)} µs | ${figures.cpu.processUs.toFixed(0).padStart(5)} µs`);
  }
}

/** Prints figure 4. */
export function printIdle(idle: SessionBytes, turns: number): void {
  out(`4. Bytes per idle session (${idle.sessions} sessions after ${turns} turns each; history excluded: event log, model history, web chat transcript)`);
  out(`   switchboard   ${idle.perSession.toFixed(0)} bytes per session (target at most ${TARGETS.idleBytes}); ${idle.all.toFixed(0)} with its history`);
  out(`   besides: ${idle.shared.toFixed(0)} bytes per session are this run's share of keys no session owns (capped queue event streams, metadata), which do not grow with sessions`);
  out(`   largest kinds of key, bytes per session: ${idle.byKind.slice(0, 8).map(([kind, bytes]) => `${kind} ${bytes.toFixed(0)}`).join(', ')}`);
}

/** Prints the heading of figure 5. */
export function printScalingHeading(cores: number): void {
  out(`5. Saturation throughput with N worker processes sharing one Redis (web role and load in the bench process; ${cores} cores)`);
  if (cores <= 2) out(`   note: on ${cores} cores the web process, Redis and the workers share ${cores} cores, so more workers cannot add CPU`);
}

/** Prints one line of figure 5. */
export function printScaling(row: Scaling, one: Scaling | undefined): void {
  const relative = (value: Saturation | undefined, first: Saturation | undefined): string =>
    value === undefined ? 'not measured' : `${spread(value)} ${first === undefined ? '-' : (value.throughput / first.throughput).toFixed(2)}x`;
  out(`   ${String(row.workers).padStart(2)} worker${row.workers === 1 ? ' ' : 's'}   switchboard ${relative(row.switchboard, one?.switchboard)}   baseline ${relative(row.baseline, one?.baseline)}`);
}

/** One row of the summary table. */
type Row = readonly [figure: string, switchboard: string, baseline: string, target: string, met: string];

function rows(figures: Figures): Row[] {
  const { baseline: base, switchboard: sb, idle, scaling } = figures;
  const table: Row[] = [];
  const na = '-';
  if (base !== undefined && sb !== undefined) {
    const ratio = commandsOf(sb) / commandsOf(base);
    const throughputRatio = throughputRatios(base, sb).median;
    table.push(
      [
        'Saturation throughput, 1 process (msg/s)',
        `${sb.saturation.throughput.toFixed(0)} (${throughputRatio.toFixed(2)}x)`,
        base.saturation.throughput.toFixed(0),
        `>= ${TARGETS.throughputRatio}x baseline`,
        yes(throughputRatio >= TARGETS.throughputRatio),
      ],
      ['Latency p50 at 50% load, model time excluded (ms)', sb.latency.p50.toFixed(1), base.latency.p50.toFixed(1), `<= ${TARGETS.p50Ms}`, yes(sb.latency.p50 <= TARGETS.p50Ms)],
      ['Latency p99 at 50% load, model time excluded (ms)', sb.latency.p99.toFixed(1), base.latency.p99.toFixed(1), `<= ${TARGETS.p99Ms}`, yes(sb.latency.p99 <= TARGETS.p99Ms)],
    );
    if (sb.a2a !== undefined) {
      // Beside the web chat's figures of the same run, in the baseline column.
      const { saturation, latency } = sb.a2a;
      table.push(
        ['A2A SendMessage saturation, 1 process (msg/s; baseline: web chat)', `${saturation.toFixed(0)} (${(saturation / sb.saturation.throughput).toFixed(2)}x)`, sb.saturation.throughput.toFixed(0), na, na],
        ['A2A SendMessage round trip p50 at 50% load, model time excluded (ms; baseline: web chat)', latency.p50.toFixed(1), sb.latency.p50.toFixed(1), na, na],
        ['A2A SendMessage round trip p99 at 50% load, model time excluded (ms; baseline: web chat)', latency.p99.toFixed(1), sb.latency.p99.toFixed(1), na, na],
      );
    }
    table.push(
      [
        'Redis commands per message',
        `${commandsOf(sb).toFixed(1)} (${ratio.toFixed(2)}x)`,
        commandsOf(base).toFixed(1),
        `<= ${TARGETS.commandsRatio}x baseline`,
        yes(ratio <= TARGETS.commandsRatio),
      ],
    );
  }
  if (idle !== undefined) {
    table.push(['Bytes per idle session, 10 turns, history excluded', idle.perSession.toFixed(0), na, `<= ${TARGETS.idleBytes}`, yes(idle.perSession <= TARGETS.idleBytes)]);
  }
  const one = scaling.find((row) => row.workers === 1);
  for (const row of scaling) {
    const times = (value: Saturation | undefined, first: Saturation | undefined): string =>
      value === undefined ? na : `${value.throughput.toFixed(0)}${first === undefined || row.workers === 1 ? '' : ` (${(value.throughput / first.throughput).toFixed(2)}x)`}`;
    const two = row.workers === 2 && one !== undefined;
    table.push([
      `Throughput, ${row.workers} worker process${row.workers === 1 ? '' : 'es'} (msg/s)`,
      times(row.switchboard, one?.switchboard),
      times(row.baseline, one?.baseline),
      two ? `>= ${TARGETS.twoWorkers}x 1 worker, CPU allowing` : na,
      two ? `${yes(row.switchboard.throughput / one.switchboard.throughput >= TARGETS.twoWorkers)}${figures.cores <= 2 ? ` (${figures.cores} cores)` : ''}` : na,
    ]);
  }
  return table;
}

/** Prints the summary as a markdown table. */
export function printSummary(figures: Figures): void {
  const table: Row[] = [['Figure', 'Switchboard', 'Baseline', 'Target', 'Met?'], ...rows(figures)];
  const widths = [0, 1, 2, 3, 4].map((column) => Math.max(...table.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]): string => `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  out();
  out('Summary (markdown):');
  out();
  out(line(table[0] ?? []));
  out(line(widths.map((width) => '-'.repeat(width))));
  for (const row of table.slice(1)) out(line(row));
}
