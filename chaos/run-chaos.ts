/**
 * One chaos run, start to end: Redis, the fake model, the web and worker processes; the load and
 * the faults at once; then the drain, the audit and the clean-up.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createJsonPoster } from '../bench/http-post.ts';
import { createWebEventStore, type StoredWebChatEvent, type WebEventStore } from '../channels/web/stream/event-store.ts';
import { findFreePort } from '../src/runtime/redis/free-port.ts';
import { readAnswers, type DeliveredAnswers } from './answers.ts';
import { auditRun, type LeftOver } from './audit.ts';
import { openBrowsers } from './browsers.ts';
import { scriptConversations, type ConversationScript } from './conversations.ts';
import { scheduleFaults, strikeFaults } from './faults.ts';
import { readLeftOver } from './leftovers.ts';
import { runLoad, type LoadOutcome } from './load.ts';
import { startChaosModel } from './model.ts';
import type { ChaosPlan } from './plan.ts';
import { startServiceProcesses } from './processes.ts';
import { createRandom } from './random.ts';
import { startChaosRedis } from './redis-process.ts';
import type { RunReport } from './report.ts';
import { approvalRequests, readConversation } from './streams.ts';
import { problemsOf } from './verdict.ts';

/** Options of {@link runChaos}. */
export interface RunChaosOptions {
  /** Progress lines. Default: none. */
  readonly log?: (line: string) => void;
  /** The column label in the report. Default `<plan name>, <fsync>`. */
  readonly label?: string;
}

const PREFIX = 'chaos';

/** Runs `plan` and reports its figures; the run folder (logs, Redis data) is removed unless it failed. */
export async function runChaos(plan: ChaosPlan, options: RunChaosOptions = {}): Promise<RunReport> {
  const log = options.log ?? ((): void => undefined);
  const began = Date.now();
  const runDir = await mkdtemp(join(tmpdir(), 'switchboard-chaos-'));
  const dataDir = join(runDir, 'redis-data');
  await mkdir(dataDir);
  const toolLog = join(runDir, 'tool-runs.log');
  const random = createRandom(plan.seed);
  const scripts = scriptConversations(plan, random);
  const schedule = scheduleFaults(plan, random);

  const redis = await startChaosRedis({ port: await findFreePort(), dataDir, fsync: plan.fsync });
  const model = await startChaosModel(plan);
  const reader = new Redis(redis.url, { maxRetriesPerRequest: 2 });
  reader.on('error', () => undefined);
  const store = createWebEventStore({ redis: reader, keyPrefix: PREFIX });
  const processes = await startServiceProcesses(
    { redisUrl: redis.url, prefix: PREFIX, port: await findFreePort(), modelUrl: model.url, sessionSecret: randomBytes(24).toString('hex'), ...(plan.lockTtlMs === undefined ? {} : { lockTtlMs: plan.lockTtlMs }), runDir, toolLog },
    plan.workers,
  );
  const http = createJsonPoster(processes.url);
  try {
    const browsers = await openBrowsers(processes.url, scripts.map((script) => script.id));
    log(`${plan.name}: ${scripts.length} conversations, ${schedule.length} faults, load ${plan.loadMs / 1000} s (run folder ${runDir})`);
    const startedAt = Date.now();
    const targets = {
      killWorker: (pick: (count: number) => number) => processes.killWorker(pick),
      restartWeb: () => processes.restartWeb(),
      restartRedisGracefully: () => redis.restartGracefully(),
      restartRedisAfterKill: () => redis.restartAfterKill(),
    };
    const [load, faults] = await Promise.all([
      runLoad(scripts, { post: http.post, store, browsers, patienceMs: plan.drainTimeoutMs }),
      strikeFaults(schedule, targets, startedAt, random).then((struck) => {
        for (const fault of struck) log(`  ${fault.kind} at ${((fault.at - startedAt) / 1000).toFixed(1)} s, serving again after ${fault.backAt - fault.at} ms`);
        return struck;
      }),
    ]);
    log(`${plan.name}: load done, ${load.accepted.length} accepted; draining`);
    const deadline = Date.now() + plan.drainTimeoutMs;
    const { streams, answers } = await drain(store, scripts, load, deadline);
    const approvalIds = [...streams.values()].flatMap(approvalRequests);
    const leftOver = await settledLeftOver(() => readLeftOver(reader, PREFIX, toolLog, approvalIds), deadline);
    const figures = auditRun({ fsync: plan.fsync, scripts, load, answers, faults, leftOver, storm: model.counts(), modelCalls: model.calls() });
    const problems = problemsOf(figures, model.problems());
    if (problems.length === 0) await rm(runDir, { recursive: true, force: true });
    else log(`${plan.name}: kept ${runDir} (the processes' logs and Redis's data)`);
    return { label: options.label ?? `${plan.name}, ${plan.fsync}`, figures, durationMs: Date.now() - began, longestWorkerStallMs: processes.longestWorkerStallMs(), problems };
  } finally {
    http.close();
    await processes.stop();
    await store.close();
    reader.disconnect();
    await model.close();
    await redis.stop();
  }
}

/**
 * What is left once the turns that delivered the last answers have also finished: an answer
 * reaches the stream before its turn settles and clears its record, so the leftovers are read
 * again (every 500 ms) while turn records or unsettled turns remain, until `deadline`. A turn that
 * never finishes is still there then, and counts as stuck.
 */
async function settledLeftOver(read: () => Promise<LeftOver>, deadline: number): Promise<LeftOver> {
  for (;;) {
    const leftOver = await read();
    if ((leftOver.turnRecords === 0 && leftOver.turnsUnsettledInLog === 0) || Date.now() > deadline) return leftOver;
    await sleep(500);
  }
}

/** The last read of every conversation's stream, and the answers found in it. */
interface Drained {
  readonly streams: ReadonlyMap<string, readonly StoredWebChatEvent[]>;
  readonly answers: DeliveredAnswers;
}

/**
 * Waits until every accepted message has an answer (storm messages: an error part), reading the
 * streams every 2 s, or until `deadline`; resolves to the last read.
 */
async function drain(store: WebEventStore, scripts: readonly ConversationScript[], load: LoadOutcome, deadline: number): Promise<Drained> {
  const storms = new Set(scripts.filter((script) => script.kind === 'storm').map((script) => script.id));
  for (;;) {
    const streams = new Map<string, StoredWebChatEvent[]>();
    for (const script of scripts) streams.set(script.id, await readConversation(store, script.id));
    const answers = readAnswers(streams);
    const waiting = load.accepted.filter((message) =>
      storms.has(message.conversation) ? (answers.errorParts.get(message.conversation) ?? 0) === 0 : !answers.count.has(message.id),
    );
    if (waiting.length === 0 || Date.now() > deadline) return { streams, answers };
    await sleep(2_000);
  }
}
