/**
 * An app's actors, run in a test: the app folder loaded as the service loads it, the real tool
 * registry, respond() validation, approval store and turn runner, on a private Redis; only the
 * model is a script. What `switchboard/testing` offers as {@link startTestBot}.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { ROUTABLE_CHANNELS, type LoadedApp, type Person, type RoutableChannel } from '../../src/runtime/app/app-types.ts';
import { loadApp } from '../../src/runtime/app/load-app.ts';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { createRedisClient } from '../../src/runtime/redis/redis-client.ts';
import { createToolRegistry } from '../../src/protocol/tools/tool-registry.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import type { ApprovalRecord, ApprovalStore, ChannelIdentity } from '../../src/runtime/approvals/approval-types.ts';
import { createNotifyTool } from '../../src/runtime/proactive/notify-tool.ts';
import type { Destination, Sender } from '../../src/runtime/injection.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { runSessionTurns } from '../../src/runtime/actor/turn-runner.ts';
import { createScriptedModel, type ScriptStep } from './scripted-model.ts';
import { createTestTurnRunner, type TestTurnRunner } from './test-turn-runner.ts';
import type { TestApproval, TestTurn } from './test-turn.ts';

/** Options of {@link startTestBot}. */
export interface TestBotOptions {
  /** The app folder (holding `switchboard.yaml`, `actors/`, `tools/`): a path, or a `file:` URL such as `new URL('..', import.meta.url)`. */
  readonly app: string | URL;
  /**
   * A Redis to use (`redis://…`), under a key prefix of its own. Default: a private `redis-server`
   * (from `PATH`) in a temporary folder, stopped and removed by {@link TestBot.close}.
   */
  readonly redisUrl?: string;
  /** The variables the app names (peers' `token: env:NAME`). Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** The channel messages arrive on when a `send` names none. Default `web`. */
  readonly channel?: string;
}

/** Who writes a message, when not a person of `switchboard.yaml` named by id. */
export interface TestSender {
  /** The channel's address of the sender (an email address, an E.164 number, …). */
  readonly address: string;
  /** The person it belongs to, if any. */
  readonly personId?: string;
  /** Whether the channel verified it. Default true. */
  readonly verified?: boolean;
}

/** Options of {@link TestBot.send}. */
export interface SendOptions {
  /** The model's answers, one step per model call the turn makes (see `callTool`, `respond`, `answer`). */
  readonly model: readonly ScriptStep[];
  /**
   * Who writes: a person id of `switchboard.yaml` (verified, with their address on the channel when
   * they have one), or a {@link TestSender}. Default: an unknown visitor, `visitor`.
   */
  readonly from?: string | TestSender;
  /** The channel. Default the bot's `channel` (`web`). */
  readonly channel?: string;
  /** The conversation, to hold several apart for one sender. Default: one per sender and channel. */
  readonly conversation?: string;
}

/** Options of {@link TestBot.approve} and {@link TestBot.deny}. */
export interface DecideOptions {
  /** The model's answers after the decision, when the turn goes on. Default none. */
  readonly model?: readonly ScriptStep[];
  /** The person who decides (an id of `switchboard.yaml`). Default: the requester when they may decide, else the first approver. */
  readonly by?: string;
  readonly reason?: string;
}

/** A message the `notify` tool sent, recorded instead of being delivered. */
export interface TestNotification {
  readonly destination: Destination;
  readonly text: string;
}

/** An app running in a test; see {@link startTestBot}. */
export interface TestBot {
  /** The loaded app: its name, actors and registered tools. */
  readonly app: { readonly name: string; readonly actors: readonly string[]; readonly tools: readonly string[] };
  /** Sends a message and runs the turn(s) it starts until they settle or wait; rejects when the script does not fit the turn. */
  send(text: string, options: SendOptions): Promise<TestTurn>;
  /** Grants a waiting approval as a person would on their channel, and runs the turn on. */
  approve(approval: TestApproval | string, options?: DecideOptions): Promise<TestTurn>;
  /** Denies a waiting approval, and runs the turn on. */
  deny(approval: TestApproval | string, options?: DecideOptions): Promise<TestTurn>;
  /** What `notify` sent so far, oldest first. */
  readonly notifications: readonly TestNotification[];
  /** Stops the private Redis (if any) and removes its folder. */
  close(): Promise<void>;
}

/** Where the bot keeps its state: a Redis client, and what stops it. */
interface TestRedis {
  readonly redis: Redis;
  stop(): Promise<void>;
}

async function openRedis(url: string | undefined): Promise<TestRedis> {
  if (url !== undefined) {
    const redis = createRedisClient(url);
    return { redis, stop: () => { redis.disconnect(); return Promise.resolve(); } };
  }
  const folder = await mkdtemp(join(tmpdir(), 'switchboard-test-bot-'));
  let server: EmbeddedRedis;
  try {
    server = await startEmbeddedRedis({ dataDir: join(folder, 'redis') });
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`switchboard/testing runs a private redis-server and could not start one: ${why} Install Redis (e.g. apt-get install redis-server) or pass redisUrl.`, { cause: error });
  }
  const redis = createRedisClient(server.url);
  return {
    redis,
    stop: async () => {
      redis.disconnect();
      await server.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function loadTestApp(options: TestBotOptions, notifications: TestNotification[]): Promise<{ app: LoadedApp; registry: ReturnType<typeof createToolRegistry> }> {
  const dir = typeof options.app === 'string' ? resolve(options.app) : fileURLToPath(options.app);
  const registry = createToolRegistry();
  const environment = options.environment ?? process.env;
  const app = await loadApp({
    dir,
    defaultModel: 'scripted-model',
    registry,
    environment: (name) => environment[name],
    registerBuiltins: (tools, known) => {
      tools.register(createNotifyTool({
        people: known.people,
        enabledChannels: ['web', 'email', 'sms', 'slack', 'whatsapp'],
        requiresApproval: known.approvalTools.has('notify'),
        send: (destination, text) => {
          notifications.push({ destination, text });
          return Promise.resolve();
        },
      }));
    },
  });
  return { app, registry };
}

/** The sender of a message from `from` on `channel`. */
function senderOf(people: readonly Person[], channel: string, from: string | TestSender | undefined): Sender {
  if (from === undefined) return { id: 'visitor', verified: true };
  if (typeof from !== 'string') return { id: from.address, verified: from.verified ?? true, ...(from.personId === undefined ? {} : { personId: from.personId }) };
  const person = people.find((known) => known.id === from);
  if (person === undefined) throw new Error(`"${from}" is not a person of switchboard.yaml (people: ${people.map((known) => known.id).join(', ') || 'none'}); pass { address } for someone unknown.`);
  const address = (person.addresses as Readonly<Record<string, readonly string[] | undefined>>)[channel]?.[0] ?? person.id;
  return { id: address, personId: person.id, displayName: person.name, verified: true, basis: 'switchboard/testing' };
}

/** Who decides `record` when the test names nobody. */
function defaultDecider(record: ApprovalRecord): ChannelIdentity {
  if (record.allowRequester) return { ...record.requester, verified: true };
  const approver = record.approvers[0];
  if (approver === undefined) throw new Error(`Nobody may decide the approval of ${record.toolName}: switchboard.yaml's approvals name no approver for it and do not allow the requester.`);
  return { ...approver, verified: true };
}

function deciderOf(people: readonly Person[], by: string | undefined, record: ApprovalRecord): ChannelIdentity {
  if (by === undefined) return defaultDecider(record);
  if (!people.some((person) => person.id === by)) throw new Error(`"${by}" is not a person of switchboard.yaml.`);
  return { channel: 'person', address: by, personId: by, verified: true };
}

function isRoutable(channel: string): channel is RoutableChannel {
  return (ROUTABLE_CHANNELS as readonly string[]).includes(channel);
}

/** The scripted model, the turn runner and the stores of one bot. */
interface BotParts {
  readonly app: LoadedApp;
  readonly approvals: ApprovalStore;
  readonly runner: TestTurnRunner;
  readonly model: ReturnType<typeof createScriptedModel>;
}

/** Loads the script, runs the session's turns and reports what the last one did. */
async function play(parts: BotParts, sessionId: string, steps: readonly ScriptStep[]): Promise<TestTurn> {
  parts.model.load(steps);
  const turn = await parts.runner.run(sessionId, (deps) => runSessionTurns(deps, sessionId, new AbortController().signal));
  const failure = parts.model.failure();
  if (failure !== undefined) throw failure;
  const unused = parts.model.unused();
  if (unused > 0) throw new Error(`The turn ended ${turn.settled ? 'settled' : 'waiting'} as "${turn.turnState}" with ${String(unused)} step${unused === 1 ? '' : 's'} of the model script unused.`);
  return turn;
}

async function decide(parts: BotParts, approval: TestApproval | string, decision: 'granted' | 'denied', options: DecideOptions): Promise<TestTurn> {
  const approvalId = typeof approval === 'string' ? approval : approval.approvalId;
  const record = await parts.approvals.get(approvalId);
  if (record === undefined) throw new Error(`There is no approval ${approvalId}.`);
  const by = deciderOf(parts.app.people, options.by, record);
  const outcome = await parts.approvals.decide({ approvalId, decision, by, ...(options.reason === undefined ? {} : { reason: options.reason }) });
  if (!outcome.ok) throw new Error(`The decision was refused (${outcome.refusal}): ${outcome.message}`);
  return play(parts, record.sessionId, options.model ?? []);
}

/**
 * Loads the app in `options.app` and returns a {@link TestBot} that runs its actors against scripted
 * model answers. Each `send` runs real turns: tool arguments and outputs are checked against their
 * schemas, respond() calls are validated (an invalid one is answered with a correction and takes
 * another step of the script), approvals are saved and wait for {@link TestBot.approve}.
 *
 * @throws SwitchboardError `app.invalid` when the app folder has problems (each one named).
 *
 * @example
 * const bot = await startTestBot({ app: new URL('..', import.meta.url) });
 * const turn = await bot.send('What time is it in Tokyo?', {
 *   model: [callTool('local_time', { timezone: 'Asia/Tokyo' }), answer('It is 09:00 in Tokyo.')],
 * });
 * assert.equal(turn.toolCalls[0]?.outcome, 'ok');
 * await bot.close();
 */
export async function startTestBot(options: TestBotOptions): Promise<TestBot> {
  const notifications: TestNotification[] = [];
  const store = await openRedis(options.redisUrl);
  let loaded: Awaited<ReturnType<typeof loadTestApp>>;
  try {
    loaded = await loadTestApp(options, notifications);
  } catch (error) {
    await store.stop();
    throw error;
  }
  const { app, registry } = loaded;
  const prefix = `sbtest:${randomUUID().slice(0, 8)}`;
  const model = createScriptedModel();
  const approvals = createApprovalStore({ redis: store.redis, prefix });
  const runner = createTestTurnRunner({
    app,
    registry,
    model,
    redis: store.redis,
    prefix,
    approvals,
    channelRoute: (channel) => (isRoutable(channel) ? app.channels[channel] : undefined),
  });
  const parts: BotParts = { app, approvals, runner, model };
  const defaultChannel = options.channel ?? 'web';
  let busy = false;
  const once = async (work: () => Promise<TestTurn>): Promise<TestTurn> => {
    if (busy) throw new Error('A test bot runs one message or decision at a time: await the previous one first.');
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };
  return {
    app: { name: app.name, actors: app.actors.map((actor) => actor.name), tools: [...app.tools] },
    notifications,
    send: (text, sendOptions) => once(() => {
      const channel = sendOptions.channel ?? defaultChannel;
      const sender = senderOf(app.people, channel, sendOptions.from);
      const conversationKey = sendOptions.conversation ?? `test:${sender.id}`;
      const sessionId = sessionIdOf('default', channel, conversationKey);
      return runner.accept(sessionId, {
        id: `test:${randomUUID()}`,
        kind: 'message',
        channel,
        tenantId: 'default',
        conversationKey,
        sender,
        text,
        replyTo: { channel, address: conversationKey },
        receivedAt: new Date().toISOString(),
      }).then(() => play(parts, sessionId, sendOptions.model));
    }),
    approve: (approval, decideOptions = {}) => once(() => decide(parts, approval, 'granted', decideOptions)),
    deny: (approval, decideOptions = {}) => once(() => decide(parts, approval, 'denied', decideOptions)),
    close: () => store.stop(),
  };
}
