/**
 * `npm run bench`: the figures of issue 12, switchboard beside a raw BullMQ pipeline with the same
 * queue hops (bench/baseline.ts), measured in the same run on a Redis of its own, with a fake model
 * that answers at once (model time excluded):
 *
 * 1. saturation throughput (closed loop), 2. latency at half of it (open loop; with the A2A
 * `SendMessage` round trip at the same rate beside the web chat's), 3. Redis commands
 * per message, 4. bytes per idle session after ten turns, 5. throughput with 1, 2 and 4 worker
 * processes; then a summary table in markdown. See bench/RESULTS.md.
 *
 * Options: `--quick` (fewer messages, under a minute). Environment, bench only: BENCH_MESSAGES
 * (messages of each saturation run), BENCH_LATENCY_MESSAGES (measured open-loop messages),
 * BENCH_CONVERSATIONS (conversations of the saturation runs).
 *
 * Two other modes, each instead of the above: `--paths` (what one message costs Redis and the
 * provider on each channel path, bench/paths/run-paths.ts) and `--peers` (the Slack path beside
 * Vercel's Chat SDK, bench/peers/run-peers.ts).
 * Exits 0 whatever the figures are; 1 when a run fails (e.g. messages not delivered in time).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../src/runtime/redis/embedded-redis.ts';
import { baselineWithWorkers, measureIdleSessions, measureSideBySide, switchboardWithWorkers, type Plan } from './phases.ts';
import { printIdle, printScaling, printScalingHeading, printSummary, printSystems, type Figures, type Scaling } from './report.ts';

const quick = process.argv.includes('--quick');
const fromEnv = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const plan: Plan = {
  conversations: fromEnv('BENCH_CONVERSATIONS', quick ? 40 : 100),
  latencyConversations: quick ? 100 : 250,
  warmUp: quick ? 100 : 300,
  saturation: fromEnv('BENCH_MESSAGES', quick ? 500 : 2000),
  repeats: 5,
  latency: fromEnv('BENCH_LATENCY_MESSAGES', quick ? 600 : 5000),
  latencyWarmUp: quick ? 100 : 500,
  loadShare: 0.5,
  idleConversations: 20,
  idleTurns: 10,
  idleWaitMs: 1500,
};
const WORKER_COUNTS = [1, 2, 4];

/**
 * Reads the Redis version, and turns automatic AOF rewrites off for the bench (a rewrite forks and
 * would land in a random run); the append-only file itself stays on, as switchboard runs it.
 */
async function prepareRedis(url: string): Promise<string> {
  const redis = new Redis(url);
  try {
    await redis.config('SET', 'auto-aof-rewrite-percentage', '0');
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } finally {
    await redis.quit();
  }
}

/** The 1-minute load average, flagged when other processes compete for the cores. */
function loadNote(): string {
  const load = loadavg()[0] ?? 0;
  return `${load.toFixed(1)}${load > availableParallelism() / 2 ? ' (other processes are busy on this machine: the figures are noisy)' : ''}`;
}

/** Runs one measurement, naming it in its error. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

async function measure(redisUrl: string, figures: Figures): Promise<void> {
  const { cores } = figures;
  process.stdout.write(
    `switchboard bench${quick ? ' --quick' : ''}: ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
      `Node ${process.version}, Redis ${await prepareRedis(redisUrl)} (AOF on, automatic rewrite off); fake model answering at once\n`,
  );
  process.stdout.write(`load average before the run: ${loadNote()}\n`);
  const sideBySide = await step('baseline and switchboard, 1 process', () => measureSideBySide(redisUrl, plan));
  figures.baseline = sideBySide.baseline;
  figures.switchboard = sideBySide.switchboard;
  printSystems(figures.baseline, figures.switchboard, plan);
  figures.idle = await step('idle sessions', () => measureIdleSessions(redisUrl, plan));
  printIdle(figures.idle, plan.idleTurns);
  printScalingHeading(cores);
  for (const workers of WORKER_COUNTS) {
    const switchboard = await step(`switchboard, ${workers} worker processes`, () => switchboardWithWorkers(redisUrl, plan, workers));
    const baseline = await step(`baseline, ${workers} worker processes`, () => baselineWithWorkers(redisUrl, plan, workers));
    const row: Scaling = { workers, switchboard, baseline };
    figures.scaling.push(row);
    printScaling(row, figures.scaling[0]);
  }
}

/** The figures of issue 12 (the default mode); resolves to whether every run finished. */
async function runIssue12(): Promise<boolean> {
  const figures: Figures = { cores: availableParallelism(), scaling: [] };
  let failed = false;
  const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-bench-'));
  const redis = await startEmbeddedRedis({ dataDir });
  try {
    await measure(redis.url, figures);
  } catch (error) {
    failed = true;
    process.stderr.write(`bench run failed: ${error instanceof Error ? error.message : String(error)}\n`);
  } finally {
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  printSummary(figures);
  return !failed;
}

const mode = process.argv.includes('--paths') ? 'paths' : process.argv.includes('--peers') ? 'peers' : 'issue12';
const started = performance.now();
// A last resort against a hang (a close that never ends): unref'd, so it never keeps the bench alive.
const watchdog = setTimeout(() => {
  process.stderr.write('bench did not finish in time; exiting\n');
  process.exit(1);
}, mode !== 'issue12' ? 400_000 : quick ? 180_000 : 900_000);
watchdog.unref();
// The other modes load their channels, fakes and peer SDKs only when asked for.
const finished =
  mode === 'paths' ? await (await import('./paths/run-paths.ts')).runPaths() : mode === 'peers' ? await (await import('./peers/run-peers.ts')).runPeers() : await runIssue12();
process.stdout.write(`\nwall time ${((performance.now() - started) / 1000).toFixed(1)} s${finished ? '' : '; a run FAILED, figures incomplete'}\n`);
process.exitCode = finished ? 0 : 1;
