/**
 * `npm run bench -- --paths`: what one message costs on each channel path, from the provider's
 * webhook (or mailbox) to the provider API call with the answer: web chat, SMS (Twilio), Slack
 * (Events API), WhatsApp (Cloud API), email (IMAP -> SMTP) and a peer over A2A, each on a switchboard of its own
 * with the instant model, on one private `redis-server`. Prints one markdown table (see
 * `report.ts`); bench/RESULTS.md, "Channel paths", explains the figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import type { ChannelPath } from './channel-path.ts';
import { emailPath } from './email-path.ts';
import { machineLine, prepareBenchRedis } from './machine.ts';
import { measurePath, type PathFigures, type PathPlan } from './measure-path.ts';
import { printPaths } from './report.ts';
import { slackPath } from './slack-path.ts';
import { a2aPath } from './a2a-path.ts';
import { smsPath } from './sms-path.ts';
import { webPath } from './web-path.ts';
import { whatsappPath } from './whatsapp-path.ts';

/**
 * 8 msg/s: under every limit the channels put on their senders at the bench's settings (SMS from a
 * Messaging Service: 10 a second; Slack: 50 a second, three per three seconds per DM; WhatsApp
 * Cloud: 80 a second); email sends fewer messages (`emailPath.perMinuteCap`).
 */
const plan: PathPlan = { rate: 8, warmUp: 16, measured: 80, tail: 8, senders: 20, idleMs: 2000 };

/** The web chat first: every other path is compared with it. */
const PATHS: readonly ChannelPath[] = [webPath, smsPath, slackPath, whatsappPath, emailPath, a2aPath];

/** Runs the bench; resolves to whether every path was measured. */
export async function runPaths(): Promise<boolean> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-bench-paths-'));
  const server = await startEmbeddedRedis({ dataDir });
  const figures: PathFigures[] = [];
  let failed = false;
  try {
    const redis = new Redis(server.url);
    try {
      process.stdout.write(`${machineLine('switchboard bench --paths', await prepareBenchRedis(redis))}\n`);
    } finally {
      await redis.quit();
    }
    for (const path of PATHS) {
      try {
        const measured = await measurePath(path, server.url, plan);
        figures.push(measured);
        process.stdout.write(`${path.name}: measured\n`);
      } catch (error) {
        failed = true;
        process.stderr.write(`${path.name}: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    printPaths(figures, plan);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return !failed;
}
