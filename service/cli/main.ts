import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { loadEnv } from '../../src/config/env.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { deploymentPrefix } from '../../src/runtime/redis/redis-target.ts';
import { startService, type ServiceRole } from '../create-service.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { runApprovalsCommand } from './approvals-command.ts';
import { connectCliRedis, findCliRedis } from './cli-redis.ts';
import { runInviteCommand } from './invite-command.ts';
import { readPeople } from './read-people.ts';
import { runDoctor } from './doctor.ts';
import { readSenderPolicies } from './read-senders.ts';
import { runSendersCommand, sendersCommandDeps } from './senders-command.ts';
import { runInitCommand } from './init-command.ts';
import { runTestCommand } from './test-command.ts';
import { runReplayCommand } from './replay-command.ts';
import { runEvalCommand } from './eval-command.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { createCaptureStore } from '../../src/runtime/inspect/capture-store.ts';
import { LOG_REDACT_PATHS, REDACTED } from '../../src/runtime/inspect/redact.ts';

/** The repository root: the default app folder (the example app). */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const USAGE = `usage:
  switchboard start [--role all|web|worker]   run the service (npm start is --role all)
  switchboard doctor                          check Redis, the model endpoint and every channel
  switchboard approvals list [--status S]     approvals, newest first (S: pending, granted, denied, expired)
  switchboard approvals show <id>             one approval and its audit trail
  switchboard invite <personId> [--minutes N] a one-time web sign-in link for a person of switchboard.yaml
  switchboard senders list                    each channel's sender policy, pairing codes waiting, approved and blocked senders
  switchboard senders approve <code>          let the sender of a pairing code in (their held messages are answered)
  switchboard senders approve <channel> <address>
                                              let a sender in without a code
  switchboard senders revoke|block <channel> <address>
                                              forget a sender's approval or block, or block a sender
  switchboard init <dir>                      a new app folder: one actor, one tool and its test, switchboard.yaml
  switchboard test [files...]                 an app's tests (*.test.ts) on Node's test runner, from its folder
  switchboard replay <conversation> [--turn N] [--export <file>]
                                              run a recorded conversation (ses_… or <channel>:<address>) again on the
                                              current actors and tools; list where it departs (exit 1), write it as a fixture
  switchboard eval <suite.yaml> [--compare <actors>]
                                              an eval suite's cases and expectations, as a table; --compare runs another
                                              actors folder or actor file beside the current one`;

function parseRole(args: readonly string[]): ServiceRole {
  const index = args.indexOf('--role');
  const value = index === -1 ? args.find((arg) => arg.startsWith('--role='))?.slice('--role='.length) : args[index + 1];
  if (value === undefined) return 'all';
  if (value === 'all' || value === 'web' || value === 'worker') return value;
  throw new SwitchboardError('config.invalid', `--role must be all, web or worker (got "${value}").`);
}

/** Options of {@link main}, for tests. */
export interface MainOptions {
  /** Data folder of the private Redis. Default `<app folder>/.data/redis`. */
  readonly redisDataDir?: string;
}

/**
 * Runs one CLI command and resolves to the process exit code. `start` resolves only after a
 * SIGTERM or SIGINT has stopped the service. Every other command uses `REDIS_URL` or, when it is
 * unset, the private Redis of the service running from this folder; none starts a Redis.
 */
export async function main(args: readonly string[], rawEnv: Readonly<Record<string, string | undefined>>, options: MainOptions = {}): Promise<number> {
  const [command, ...rest] = args;
  // These two read no environment: they work on a folder.
  if (command === 'init' || command === 'test') return folderCommand(command, rest);
  let env: SwitchboardEnv;
  try {
    env = loadEnv(rawEnv, { appDir: REPO_ROOT, ...(options.redisDataDir === undefined ? {} : { redisDataDir: options.redisDataDir }) });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  try {
    if (command === 'start') return await start(env, parseRole(rest));
    if (command === 'doctor') return await runDoctor(env, process.stdout);
    if (command === 'approvals') return await approvals(env, rest);
    if (command === 'invite') return await invite(env, rest);
    if (command === 'senders') return await senders(env, rest);
    if (command === 'replay') return await withCliRedis(env, (redis, prefix) => runReplayCommand(rest, { readLog: (id) => createEventLog({ redis, prefix }).read(id, 100_000), capture: createCaptureStore({ redis, prefix }), appDir: env.appDir }, process.stdout));
    if (command === 'eval') return await runEvalCommand(rest, { env, cwd: process.cwd() }, process.stdout);
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  } catch (error) {
    process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** `switchboard init` and `switchboard test`, in the working directory. */
async function folderCommand(command: 'init' | 'test', args: readonly string[]): Promise<number> {
  try {
    if (command === 'init') return await runInitCommand(args, { installation: REPO_ROOT, cwd: process.cwd() }, process.stdout);
    return await runTestCommand(args, process.cwd(), process.stderr);
  } catch (error) {
    process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof SwitchboardError && error.code === 'config.invalid' ? 2 : 1;
  }
}

/**
 * Runs `work` on a connection to REDIS_URL, or to the private Redis of the service running from
 * this folder, under the deployment's key prefix; disconnects after.
 */
async function withCliRedis(env: SwitchboardEnv, work: (redis: Redis, prefix: string) => Promise<number>): Promise<number> {
  const target = await findCliRedis(env.redis);
  const redis = await connectCliRedis(target);
  try {
    return await work(redis, deploymentPrefix(target.url));
  } finally {
    redis.disconnect();
  }
}

/** `switchboard approvals …`. */
function approvals(env: SwitchboardEnv, args: readonly string[]): Promise<number> {
  return withCliRedis(env, (redis, prefix) => runApprovalsCommand([...args], createApprovalStore({ redis, prefix }), process.stdout));
}

/** `switchboard invite …`. */
async function invite(env: SwitchboardEnv, args: readonly string[]): Promise<number> {
  const people = await readPeople(env.appDir);
  return withCliRedis(env, (redis, prefix) => runInviteCommand(args, { people, links: { redis, prefix, publicUrl: env.publicUrl } }, process.stdout));
}

/**
 * `switchboard senders …`. An approval puts the held messages into their mailboxes and asks the
 * turn queue for their turns; the running service's workers answer them.
 */
async function senders(env: SwitchboardEnv, args: readonly string[]): Promise<number> {
  const policies = await readSenderPolicies(env).catch(() => undefined);
  return withCliRedis(env, async (redis, prefix) => {
    const deps = sendersCommandDeps({ redis, prefix, approver: `cli ${userInfo().username}`, ...(policies === undefined ? {} : { policies }) });
    try {
      return await runSendersCommand(args, deps, process.stdout);
    } finally {
      await deps.close();
    }
  });
}

async function start(env: SwitchboardEnv, role: ServiceRole): Promise<number> {
  // Credentials in headers are censored wherever a request or an error is logged.
  const logger = pino({ level: env.logLevel, base: { role }, redact: { paths: [...LOG_REDACT_PATHS], censor: REDACTED } });
  // Taken over from the first moment: a SIGTERM or SIGINT during start-up lets the step under way
  // finish, then closes what was opened (the private Redis too), so no process is left behind.
  let signalled: string | undefined;
  const stopped = new Promise<void>((resolveStop) => {
    const stop = (signal: string): void => {
      signalled ??= signal;
      logger.info({ signal }, 'stopping');
      resolveStop();
    };
    process.once('SIGTERM', () => { stop('SIGTERM'); });
    process.once('SIGINT', () => { stop('SIGINT'); });
  });
  if (env.redis.mode === 'embedded' && role !== 'all') {
    throw new SwitchboardError('config.invalid', `REDIS_URL is required for --role ${role}: separate web and worker processes must share one Redis.`);
  }
  let embedded: EmbeddedRedis | undefined;
  let redisUrl: string;
  if (env.redis.mode === 'external') {
    redisUrl = env.redis.url;
  } else {
    embedded = await startEmbeddedRedis({ dataDir: env.redis.dataDir, logger });
    redisUrl = embedded.url;
    logger.info({ dataDir: env.redis.dataDir, port: embedded.port }, 'started a private redis-server');
  }
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    if (signalled === undefined) service = await startService({ env, role, redisUrl, logger });
  } catch (error) {
    // The service closed what it had opened; the private Redis is this command's to stop.
    await embedded?.stop();
    throw error;
  }
  if (service?.url !== undefined && signalled === undefined) {
    process.stdout.write(`switchboard is running: open ${env.publicUrl === `http://localhost:${env.port}` ? service.url : env.publicUrl}\n`);
  }
  await stopped;
  await service?.close();
  await embedded?.stop();
  return 0;
}
