/** What makes a chaos run fail. */
import type { ChaosFigures } from './audit.ts';

/**
 * Each problem of a run, in words; empty when it passed. A message lost to a Redis SIGKILL under
 * `everysec` is the documented cost of that setting and reported apart, not counted here.
 */
export function problemsOf(figures: ChaosFigures, modelProblems: readonly string[] = []): string[] {
  const checks: [number, string][] = [
    [figures.unaccepted, 'messages never accepted'],
    [figures.lost, 'messages lost'],
    [figures.duplicated, 'messages answered twice'],
    [figures.outOfOrder, 'answers out of order'],
    [figures.stuck, 'stuck messages or turns'],
    [figures.approvalsDecidedTwice, 'approvals decided twice'],
    [figures.approvalsExecutedTwice, 'approved calls executed twice'],
    [figures.approvalsUnfinished, 'approvals never shown or decided'],
    [figures.unexpectedErrors, 'unexpected error parts'],
    [figures.recoveries.reduce((sum, recovery) => sum + recovery.timesMs.filter((time) => time === undefined).length, 0), 'faults never recovered from'],
    [modelProblems.length, `fake model problems (${modelProblems.slice(0, 3).join('; ')})`],
  ];
  return checks.filter(([count]) => count > 0).map(([count, what]) => `${count} ${what}`);
}
