/**
 * `npm run bench -- --peers`: switchboard's Slack path beside a minimal bot on Vercel's Chat SDK
 * (`chat-sdk-bot.ts`), on the same machine, the same Redis, the same fake Slack Web API and the
 * same instant model, each system in a child process of its own. First both systems run side by
 * side (`side-by-side.ts`): five pairs of saturation runs, the two taking turns; the throughput
 * target is judged on the median of the pairs' ratios. Then the runs alternate: switchboard with
 * the Slack sender's rate limits lifted, the Chat SDK, switchboard again. Each run measures
 * saturation throughput, latency at a fixed open-loop rate, Redis commands, CPU and Web API calls
 * per message, and what a SIGKILL in a burst costs (see `measure-run.ts`); each prints a table,
 * and a summary ends the bench. See bench/RESULTS.md, "Beside Chat SDK".
 *
 * Environment, bench only: BENCH_PEERS_MESSAGES (saturation messages, default 1000),
 * BENCH_PEERS_LATENCY_MESSAGES (measured open-loop messages, default 200).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { startFakeSlack } from '../../test/fakes/fake-slack.ts';
import { machineLine, prepareBenchRedis } from '../paths/machine.ts';
import { measureRun, type PeerPlan, type RunFigures, type RunSpec } from './measure-run.ts';
import { printPairedSaturation, printPeerSummary, printRun } from './report.ts';
import { saturationSideBySide } from './side-by-side.ts';
import { watchSlackAnswers } from './slack-answers.ts';

const fromEnv = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

const plan: PeerPlan = {
  pool: 150,
  // Seven rounds of the pool: both systems reach their steady state (JIT, heap) before they are measured.
  warmUp: 1050,
  saturation: fromEnv('BENCH_PEERS_MESSAGES', 1000),
  inFlight: 100,
  latencyRate: 20,
  latency: fromEnv('BENCH_PEERS_LATENCY_MESSAGES', 200),
  latencyWarmUp: 30,
  kill: { events: 300, rate: 1000, killAfter: 150, firstDm: 100_000 },
};

const BOT_TOKEN = 'xoxb-bench-peers-token';
const SIGNING_SECRET = 'bench-peers-signing-secret';
const SWITCHBOARD_CHILD = fileURLToPath(new URL('./switchboard-slack.ts', import.meta.url));
const CHAT_SDK_CHILD = fileURLToPath(new URL('./chat-sdk-bot.ts', import.meta.url));

/** Side-by-side pairs of saturation runs the throughput target is judged on (side-by-side.ts). */
const SIDE_BY_SIDE_PAIRS = 5;

/**
 * The runs' systems, switchboard and the Chat SDK; the runs alternate. Three, not four: each
 * SIGKILL burst ends with 35 s of quiet, and the mode must stay near three minutes. Switchboard runs with the Slack
 * sender's limits lifted, as a workspace whose limits are higher would set them: as shipped, Slack's
 * `chat.postMessage` tier (300 a minute for the workspace) sets its rate, whatever the machine.
 */
function specMakers(redisUrl: string, slackApiUrl: string): { switchboard: (label: string) => RunSpec; chatSdk: (label: string) => RunSpec } {
  const common = { redisUrl, slackApiUrl, botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET };
  return {
    switchboard: (label) => ({ label, name: 'switchboard (Slack limits lifted)', system: 'switchboard', script: SWITCHBOARD_CHILD, config: common }),
    chatSdk: (label) => ({ label, name: 'Chat SDK', system: 'chat-sdk', script: CHAT_SDK_CHILD, config: common }),
  };
}

/** Runs the bench; resolves to whether every run finished. */
export async function runPeers(): Promise<boolean> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-bench-peers-'));
  const server = await startEmbeddedRedis({ dataDir });
  const redis = new Redis(server.url);
  const slack = await startFakeSlack({ botToken: BOT_TOKEN, tsFrom: 'clock' });
  const answers = watchSlackAnswers(slack.url);
  const runs: RunFigures[] = [];
  let failed = false;
  try {
    process.stdout.write(`${machineLine('switchboard bench --peers', await prepareBenchRedis(redis))}\n`);
    process.stdout.write(
      'Slack path beside the Chat SDK (chat 4.41, @chat-adapter/slack, @chat-adapter/state-redis): signed Events API DM events over HTTP -> ' +
        'one instant model call -> chat.postMessage to the fake Slack Web API; each system alone in a child process, one after the other\n',
    );
    const { switchboard, chatSdk } = specMakers(server.url, slack.url);
    const context = { redisUrl: server.url, redis, answers, signingSecret: SIGNING_SECRET };
    const paired = await saturationSideBySide(switchboard('sbpair'), chatSdk('sdkpair'), plan, context, SIDE_BY_SIDE_PAIRS);
    printPairedSaturation(paired, plan);
    slack.reset();
    for (const spec of [switchboard('sbfirst'), chatSdk('sdk'), switchboard('sbsecond')]) {
      try {
        const run = await measureRun(spec, plan, context);
        runs.push(run);
        printRun(run, plan);
      } catch (error) {
        failed = true;
        process.stderr.write(`${spec.name}: ${error instanceof Error ? error.message : String(error)}\n`);
      }
      slack.reset();
    }
    printPeerSummary(runs, plan, paired);
  } finally {
    answers.stop();
    await slack.close();
    await redis.quit();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return !failed;
}
