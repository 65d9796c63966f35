/**
 * `npm run bench`: drives messages through the web chat API with a fake model that answers at once,
 * and measures sustained throughput and latency (accepted request → delivered response part) beside a
 * raw BullMQ pipeline with the same queue hops on the same Redis, measured in the same run.
 *
 * Beside each: Redis commands per delivered message (`INFO commandstats` around the run), and after
 * the switchboard run, the bytes each idle session keeps.
 *
 * Options: `--quick` (400 messages over 40 conversations, under a minute); environment, bench only:
 * BENCH_MESSAGES (default 2000), BENCH_CONVERSATIONS (default 100).
 */
import { createWebClient } from '../test/web/web-client.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createWebEventStore } from '../channels/web/stream/event-store.ts';
import { loadEnv } from '../src/config/env.ts';
import { startEmbeddedRedis } from '../src/runtime/redis/embedded-redis.ts';
import type { ModelClient } from '../src/runtime/model/model-types.ts';
import { startService } from '../src/runtime/service/create-service.ts';
import { runBaseline } from './baseline.ts';
import { commandCounts, commandsBetween, commandsPerMessage, perMessage, sessionBytes, type SessionBytes } from './redis-usage.ts';
import { LatencyTracker, type Summary } from './stats.ts';

const quick = process.argv.includes('--quick');
const messages = Number(process.env['BENCH_MESSAGES'] ?? (quick ? 400 : 2000));
const conversations = Number(process.env['BENCH_CONVERSATIONS'] ?? (quick ? 40 : 100));
const appDir = fileURLToPath(new URL('../test/fixtures/followup-app/', import.meta.url));

/** Answers every call at once with one complete response echoing the person's last message. */
const instantModel: ModelClient = {
  create(request) {
    const last = request.messages.at(-1);
    const text = last?.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).at(-1) ?? '';
    return Promise.resolve({
      id: 'msg_bench',
      model: request.model,
      stopReason: 'tool_use',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      content: [{ type: 'tool_use', id: `toolu_${text}`, name: 'respond', input: { parts: [{ text: `re ${text}`, metadata: { partType: 'response' } }], turnState: 'complete' } }],
    });
  },
};

/** A run's figures: latency and throughput, the commands it ran, and (switchboard) what idle sessions keep. */
interface Run {
  readonly summary: Summary;
  readonly commands: [string, number][];
  readonly sessions?: SessionBytes;
}

async function runSwitchboard(redisUrl: string): Promise<Run> {
  const prefix = `bench${Date.now().toString(36)}`;
  const env = loadEnv({ SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', REDIS_URL: redisUrl }, { appDir });
  const service = await startService({ env, role: 'all', redisUrl, logger: pino({ level: 'silent' }), prefix, port: 0, model: instantModel, turnConcurrency: 32 });
  const redis = new Redis(redisUrl);
  const store = createWebEventStore({ redis, keyPrefix: prefix });
  const tracker = new LatencyTracker(messages);
  const ids = Array.from({ length: conversations }, (_, index) => `bench-${index}`);
  const unsubscribe = await Promise.all(
    ids.map((conversation) =>
      store.subscribe(conversation, ({ event }) => {
        if (event.type !== 'part' || event.part.metadata.partType !== 'response') return;
        tracker.delivered((event.part.text ?? '').slice('re '.length), performance.now());
      }),
    ),
  );
  const perConversation = Math.ceil(messages / conversations);
  const before = await commandCounts(redis);
  tracker.started(performance.now());
  await Promise.all(
    ids.map(async (conversation, index) => {
      // One browser per conversation, with its session cookie and CSRF token, as the page has.
      const browser = createWebClient(service.url ?? '');
      await browser.session();
      for (let message = 0; message < perConversation && index * perConversation + message < messages; message += 1) {
        const key = `${conversation}_${message}`;
        const response = await browser.post(`/api/chat/${conversation}/messages`, { text: key, id: key });
        if (response.status !== 202) throw new Error(`POST answered ${response.status}`);
        tracker.accepted(key, performance.now());
      }
    }),
  );
  const timeout = setTimeout(() => {
    process.stderr.write(`only ${tracker.count} of ${messages} delivered in 300 s\n`);
    process.exit(1);
  }, 300_000);
  await tracker.done;
  clearTimeout(timeout);
  const commands = commandsBetween(before, await commandCounts(redis));
  // Idle: every turn settled and delivered; what stays is what each session keeps.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const sessions = await sessionBytes(redis, prefix);
  for (const stop of unsubscribe) await stop();
  await store.close();
  await redis.quit();
  await service.close();
  return { summary: tracker.summary(), commands, sessions };
}

async function runBaselineCounted(redisUrl: string): Promise<Run> {
  const redis = new Redis(redisUrl);
  const before = await commandCounts(redis);
  const summary = await runBaseline(redisUrl, messages, conversations);
  const commands = commandsBetween(before, await commandCounts(redis));
  await redis.quit();
  return { summary, commands };
}

function line(label: string, summary: Summary): string {
  return `${label.padEnd(28)} ${summary.throughput.toFixed(0).padStart(7)} msg/s   p50 ${summary.p50.toFixed(1).padStart(7)} ms   p99 ${summary.p99.toFixed(1).padStart(7)} ms`;
}

const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-bench-'));
const redis = await startEmbeddedRedis({ dataDir });
try {
  process.stdout.write(`switchboard bench: ${messages} messages over ${conversations} conversations, fake model answering at once\n`);
  const baselineRun = await runBaselineCounted(redis.url);
  const switchboardRun = await runSwitchboard(redis.url);
  const baseline = baselineRun.summary;
  const switchboard = switchboardRun.summary;
  process.stdout.write(`${line('raw BullMQ, 2 hops (baseline)', baseline)}\n`);
  process.stdout.write(`${line('switchboard web chat', switchboard)}\n`);
  process.stdout.write(
    `ratio switchboard/baseline: throughput ${(switchboard.throughput / baseline.throughput).toFixed(2)}x, ` +
      `p50 latency ${(switchboard.p50 / baseline.p50).toFixed(2)}x, p99 latency ${(switchboard.p99 / baseline.p99).toFixed(2)}x\n`,
  );
  process.stdout.write(`Redis commands per message: baseline ${perMessage(baselineRun.commands, messages)}\n`);
  process.stdout.write(`                            switchboard ${perMessage(switchboardRun.commands, messages)}\n`);
  process.stdout.write(`  ratio ${(commandsPerMessage(switchboardRun.commands, messages) / commandsPerMessage(baselineRun.commands, messages)).toFixed(2)}x (target at most 1.3x)\n`);
  const idle = switchboardRun.sessions;
  if (idle !== undefined) {
    process.stdout.write(`Redis bytes per idle session (${idle.sessions} sessions, ~${(messages / conversations).toFixed(0)} messages each): ${idle.all.toFixed(0)} in all, ${idle.withoutHistory.toFixed(0)} without event log and history (target at most 4096)\n`);
    process.stdout.write(`  largest: ${idle.byKind.slice(0, 6).map(([kind, bytes]) => `${kind} ${bytes.toFixed(0)}`).join(', ')}\n`);
  }
} finally {
  await redis.stop();
  await rm(dataDir, { recursive: true, force: true });
}
