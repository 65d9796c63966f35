/** The chaos run's table: one column per run, one row per figure. */
import type { ChaosFigures } from './audit.ts';
import type { Recovery } from './recovery.ts';

/** One finished run, as the table shows it. */
export interface RunReport {
  /** The column's heading, e.g. `full, always`. */
  readonly label: string;
  readonly figures: ChaosFigures;
  readonly durationMs: number;
  /** The longest any worker's event loop was held up, in ms (see `ServiceProcesses.longestWorkerStallMs`). */
  readonly longestWorkerStallMs: number;
  /** What failed (empty: passed). */
  readonly problems: readonly string[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `n (median x s, max y s)` for one kind of fault. */
function recoveryCell(recovery: Recovery | undefined): string {
  if (recovery === undefined || recovery.count === 0) return '0';
  const known = recovery.timesMs.filter((time): time is number => time !== undefined).sort((a, b) => a - b);
  const never = recovery.count - known.length;
  const median = known[Math.floor((known.length - 1) / 2)];
  const max = known.at(-1);
  const times = median === undefined || max === undefined ? 'no recovery' : `median ${seconds(median)}, max ${seconds(max)}`;
  return `${recovery.count} (${times}${never > 0 ? `, ${never} never` : ''})`;
}

const ROWS: readonly [string, (run: RunReport) => string][] = [
  ['Redis appendfsync', (run) => run.figures.fsync],
  ['conversations', (run) => String(run.figures.conversations)],
  ['messages sent / accepted (202)', (run) => `${run.figures.sent} / ${run.figures.accepted}`],
  ['accepted messages answered', (run) => String(run.figures.answered)],
  ['lost', (run) => String(run.figures.lost)],
  ['acknowledged, then lost by Redis SIGKILL', (run) => String(run.figures.lostToRedisKill)],
  ['answered twice', (run) => String(run.figures.duplicated)],
  ['answered out of order', (run) => String(run.figures.outOfOrder)],
  ['stuck (unanswered in Redis, turns unsettled)', (run) => String(run.figures.stuck)],
  ['approvals requested', (run) => String(run.figures.approvalsRequested)],
  ['approvals decided twice / executed twice', (run) => `${run.figures.approvalsDecidedTwice} / ${run.figures.approvalsExecutedTwice}`],
  ['model calls refused once (529/500) / answered on retry', (run) => `${run.figures.storm.transientRefusals} / ${run.figures.storm.retriedOk}`],
  ['storm turns ended in an error part', (run) => `${run.figures.stormTurnsEndedInError} (${run.figures.storm.persistentRefusals} calls refused)`],
  ['unexpected error parts', (run) => String(run.figures.unexpectedErrors)],
  ['turns taken over from a killed worker', (run) => String(run.figures.turnsTakenOver)],
  ['worker SIGKILLs (recovery)', (run) => recoveryCell(run.figures.recoveries.find((r) => r.kind === 'worker SIGKILL'))],
  ['web SIGKILL + restart (recovery)', (run) => recoveryCell(run.figures.recoveries.find((r) => r.kind === 'web SIGKILL'))],
  ['Redis SIGTERM + restart (recovery)', (run) => recoveryCell(run.figures.recoveries.find((r) => r.kind === 'Redis SIGTERM'))],
  ['Redis SIGKILL + restart (recovery)', (run) => recoveryCell(run.figures.recoveries.find((r) => r.kind === 'Redis SIGKILL'))],
  ['longest event-loop stall of a serving worker', (run) => seconds(run.longestWorkerStallMs)],
  ['run time', (run) => seconds(run.durationMs)],
  ['verdict', (run) => (run.problems.length === 0 ? 'PASS' : `FAIL: ${run.problems.join(', ')}`)],
];

/** The table as Markdown, ready for the terminal and the README. */
export function formatTable(runs: readonly RunReport[]): string {
  const header = `| | ${runs.map((run) => run.label).join(' | ')} |`;
  const rule = `| --- | ${runs.map(() => '---').join(' | ')} |`;
  const rows = ROWS.map(([name, cell]) => `| ${name} | ${runs.map(cell).join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}
