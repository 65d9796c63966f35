/**
 * `npm run chaos`: kills and restarts workers, the web process and Redis under load, then prints
 * one table of what was lost, duplicated, reordered or stuck, and how long each fault took to
 * recover from. Exits 1 when any run found a problem.
 *
 *   npm run chaos                      the full run (appendfsync always), then a shorter everysec run
 *   npm run chaos -- --quick           about a minute, every kind of fault
 *   npm run chaos -- --fsync everysec  only that mode (with --quick too)
 *   npm run chaos -- --seed 7          another plan of the same size
 */
import { parseArgs } from 'node:util';
import { EVERYSEC_PLAN, FULL_PLAN, QUICK_PLAN, type ChaosPlan } from './plan.ts';
import { formatTable, type RunReport } from './report.ts';
import { runChaos } from './run-chaos.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    fsync: { type: 'string' },
    seed: { type: 'string' },
  },
});

/** The plans the options ask for. */
function plansOf(): ChaosPlan[] {
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) throw new Error(`--seed must be an integer, not ${values.seed ?? ''}`);
  const fsync = values.fsync;
  if (fsync !== undefined && fsync !== 'always' && fsync !== 'everysec') throw new Error(`--fsync must be always or everysec, not ${fsync}`);
  const base = values.quick ? [QUICK_PLAN, { ...QUICK_PLAN, fsync: 'everysec' as const }] : [FULL_PLAN, EVERYSEC_PLAN];
  const chosen = fsync === undefined ? base : base.filter((plan) => plan.fsync === fsync);
  return chosen.map((plan) => (seed === undefined ? plan : { ...plan, seed }));
}

const reports: RunReport[] = [];
for (const plan of plansOf()) {
  reports.push(await runChaos(plan, { log: (line) => { process.stdout.write(`${line}\n`); } }));
}
process.stdout.write(`\n${formatTable(reports)}\n`);
process.exitCode = reports.some((report) => report.problems.length > 0) ? 1 : 0;
