/**
 * What a test bot is made of: the app folder loaded as the service loads it (its tools registered
 * behind a stand-in switch), a private Redis, the approval store and the turn runner. The test bot,
 * replays and evals are built on it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import type { ActorConfig } from '../../src/runtime/actor/actor-config.ts';
import { ROUTABLE_CHANNELS, type LoadedApp, type Person, type RoutableChannel } from '../../src/runtime/app/app-types.ts';
import { loadApp } from '../../src/runtime/app/load-app.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import type { ApprovalRecord, ApprovalStore, ChannelIdentity } from '../../src/runtime/approvals/approval-types.ts';
import type { ContentProvenance, Injection, InjectionKind, Sender } from '../../src/runtime/injection.ts';
import type { TurnInspection } from '../../src/runtime/inspect/turn-inspection.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { createNotifyTool } from '../../src/runtime/proactive/notify-tool.ts';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { createRedisClient } from '../../src/runtime/redis/redis-client.ts';
import { createEventLog, type EventLog } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { runSessionTurns } from '../../src/runtime/actor/turn-runner.ts';
import { createScriptedModel, type ScriptedModel } from './scripted-model.ts';
import { StandInRegistry } from './stand-in-registry.ts';
import type { TestBotOptions, TestNotification, TestSender } from './test-bot-types.ts';
import { createTestTurnRunner, type TestTurnRunner } from './test-turn-runner.ts';
import type { TestTurn } from './test-turn.ts';

/** What a replay or an eval changes of the bot it opens. */
export interface BotHooks {
  /** The model turns call. Default: the bot's scripted model ({@link BotParts.script}). */
  readonly model?: ModelClient;
  /** The model of actors whose file names none. Default `scripted-model`. */
  readonly defaultModel?: string;
  /** Actors that take the place of the app's actors of the same name (or join them). */
  readonly actors?: readonly ActorConfig[];
  /** The key prefix of the bot's state. Default a fresh `sbtest:<id>`. */
  readonly prefix?: string;
  /** What the inspector records (capture of whole model calls). Default nothing. */
  readonly inspect?: TurnInspection;
}

/** An open bot: the loaded app, its stores and its turn runner. */
export interface BotParts {
  readonly app: LoadedApp;
  /** The app's tools; {@link StandInRegistry.standIn} answers calls in their place. */
  readonly registry: StandInRegistry;
  readonly approvals: ApprovalStore;
  readonly runner: TestTurnRunner;
  /** The scripted model (the one turns call unless {@link BotHooks.model} is set). */
  readonly script: ScriptedModel;
  /** The bot's event log, to read what its turns logged. */
  readonly log: EventLog;
  /** What `notify` sent, oldest first. */
  readonly notifications: TestNotification[];
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

/** The app's actors with `replacements` put in place of those of the same name (new names join). */
function withActors(actors: readonly ActorConfig[], replacements: readonly ActorConfig[] | undefined): ActorConfig[] {
  if (replacements === undefined) return [...actors];
  const replaced = new Map(replacements.map((actor) => [actor.name, actor]));
  const kept = actors.map((actor) => replaced.get(actor.name) ?? actor);
  return [...kept, ...replacements.filter((actor) => !actors.some((known) => known.name === actor.name))];
}

async function loadTestApp(options: TestBotOptions, hooks: BotHooks, notifications: TestNotification[]): Promise<{ app: LoadedApp; registry: StandInRegistry }> {
  const dir = typeof options.app === 'string' ? resolve(options.app) : fileURLToPath(options.app);
  const registry = new StandInRegistry();
  const environment = options.environment ?? process.env;
  const app = await loadApp({
    dir,
    defaultModel: hooks.defaultModel ?? 'scripted-model',
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
  return { app: { ...app, actors: withActors(app.actors, hooks.actors) }, registry };
}

function isRoutable(channel: string): channel is RoutableChannel {
  return (ROUTABLE_CHANNELS as readonly string[]).includes(channel);
}

/**
 * Loads the app of `options` on a private Redis (or `options.redisUrl`) and opens its stores and
 * turn runner, changed as `hooks` say.
 *
 * @throws SwitchboardError `app.invalid` when the app folder has problems (each one named).
 */
export async function openBot(options: TestBotOptions, hooks: BotHooks = {}): Promise<BotParts> {
  const notifications: TestNotification[] = [];
  const store = await openRedis(options.redisUrl);
  let loaded: Awaited<ReturnType<typeof loadTestApp>>;
  try {
    loaded = await loadTestApp(options, hooks, notifications);
  } catch (error) {
    await store.stop();
    throw error;
  }
  const { app, registry } = loaded;
  const prefix = hooks.prefix ?? `sbtest:${randomUUID().slice(0, 8)}`;
  const script = createScriptedModel();
  const approvals = createApprovalStore({ redis: store.redis, prefix });
  const runner = createTestTurnRunner({
    app,
    registry,
    model: hooks.model ?? script,
    redis: store.redis,
    prefix,
    approvals,
    channelRoute: (channel) => (isRoutable(channel) ? app.channels[channel] : undefined),
    ...(hooks.inspect === undefined ? {} : { inspect: hooks.inspect }),
  });
  const log = createEventLog({ redis: store.redis, prefix });
  return { app, registry, approvals, runner, script, log, notifications, close: () => store.stop() };
}

/** The sender of a message from `from` on `channel`. */
export function senderOf(people: readonly Person[], channel: string, from: string | TestSender | undefined): Sender {
  if (from === undefined) return { id: 'visitor', verified: true };
  if (typeof from !== 'string') return { id: from.address, verified: from.verified ?? true, ...(from.personId === undefined ? {} : { personId: from.personId }) };
  const person = people.find((known) => known.id === from);
  if (person === undefined) throw new Error(`"${from}" is not a person of switchboard.yaml (people: ${people.map((known) => known.id).join(', ') || 'none'}); pass { address } for someone unknown.`);
  const address = (person.addresses as Readonly<Record<string, readonly string[] | undefined>>)[channel]?.[0] ?? person.id;
  return { id: address, personId: person.id, displayName: person.name, verified: true, basis: 'switchboard/testing' };
}

/** What {@link putInjection} puts in a session's mailbox. */
export interface InjectionInput {
  readonly text: string;
  readonly channel: string;
  readonly from?: string | TestSender;
  /** The conversation key. Default: one per sender, `test:<sender id>`. */
  readonly conversation?: string;
  /** Default `message`. */
  readonly kind?: InjectionKind;
  readonly content?: ContentProvenance;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** Puts one injection in its session's mailbox; resolves to the session id. */
export async function putInjection(parts: BotParts, input: InjectionInput): Promise<string> {
  const { channel } = input;
  const sender = senderOf(parts.app.people, channel, input.from);
  const conversationKey = input.conversation ?? `test:${sender.id}`;
  const sessionId = sessionIdOf('default', channel, conversationKey);
  const injection: Injection = {
    id: `test:${randomUUID()}`,
    kind: input.kind ?? 'message',
    channel,
    tenantId: 'default',
    conversationKey,
    sender,
    text: input.text,
    ...(input.content === undefined ? {} : { content: input.content }),
    ...(input.data === undefined ? {} : { data: input.data }),
    replyTo: { channel, address: conversationKey },
    receivedAt: new Date().toISOString(),
  };
  await parts.runner.accept(sessionId, injection);
  return sessionId;
}

/** Runs the session's waiting turns and reports the last one (rejects when no turn ran). */
export function runTurns(parts: BotParts, sessionId: string): Promise<TestTurn> {
  return parts.runner.run(sessionId, (deps) => runSessionTurns(deps, sessionId, new AbortController().signal));
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

/**
 * Decides a waiting approval as a person would on their channel (`by`: a person id; default the
 * requester when allowed, else the first approver), or lets it expire; resolves to its session.
 */
export async function applyDecision(parts: BotParts, approvalId: string, decision: 'granted' | 'denied' | 'expired', options: { readonly by?: string; readonly reason?: string } = {}): Promise<string> {
  const record = await parts.approvals.get(approvalId);
  if (record === undefined) throw new Error(`There is no approval ${approvalId}.`);
  const outcome = decision === 'expired'
    ? await parts.approvals.expire(approvalId)
    : await parts.approvals.decide({ approvalId, decision, by: deciderOf(parts.app.people, options.by, record), ...(options.reason === undefined ? {} : { reason: options.reason }) });
  if (!outcome.ok) throw new Error(`The decision was refused (${outcome.refusal}): ${outcome.message}`);
  return record.sessionId;
}

const partsOfBots = new WeakMap<object, BotParts>();

/** Remembers the parts a test bot was made of, for {@link partsOfBot}. */
export function rememberParts(bot: object, parts: BotParts): void {
  partsOfBots.set(bot, parts);
}

/** The parts of a bot made by `startTestBot`. */
export function partsOfBot(bot: object): BotParts {
  const parts = partsOfBots.get(bot);
  if (parts === undefined) throw new Error('Not a test bot: pass the bot startTestBot made.');
  return parts;
}
