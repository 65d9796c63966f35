/**
 * The composition root: builds what every role shares (app, model, Redis, queues, stores, the
 * channels), then starts the web role (HTTP) and the worker role (queues, listeners) as asked.
 */
import type { Redis } from 'ioredis';
import type { ChannelModule } from '../channels/channel.ts';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { CHANNEL_MODULES } from '../channels/registry.ts';
import type { ToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import type { LoadedApp } from '../src/runtime/app/app-types.ts';
import { createInboundQueue } from '../queues/inbound-queue.ts';
import { createOutbound } from '../queues/outbound-queue.ts';
import { createQueueStats } from '../queues/queue-stats.ts';
import { closeRedis } from '../queues/redis-connections.ts';
import { createTurnQueue } from '../queues/turn-queue.ts';
import { DEFAULT_ACTOR_MODEL } from '../src/config/models.ts';
import { createPartTypeRegistry } from '../src/protocol/parts/canonical-part-types.ts';
import { createToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import { createTurnStateRegistry } from '../src/protocol/turn-states/turn-state-registry.ts';
import { resolveActors } from '../src/runtime/actor/resolved-actor.ts';
import { loadApp } from '../src/runtime/app/load-app.ts';
import { createApprovalStore } from '../src/runtime/approvals/redis-approval-store.ts';
import { signArtifactUrl } from '../src/runtime/artifacts/artifact-urls.ts';
import { createRedisArtifactStore } from '../src/runtime/artifacts/redis-artifact-store.ts';
import { keptSecret } from '../channels/kit/kept-secret.ts';
import { createEventLog } from '../src/runtime/session/event-log.ts';
import { acceptIntoMailbox, createInboundIntake } from '../channels/kit/inbound-intake.ts';
import { createSessionStore } from '../src/runtime/session/session-store.ts';
import { sessionIdOf } from '../src/runtime/session/session-id.ts';
import { createRedisClient, serviceRedisOptions } from '../src/runtime/redis/redis-client.ts';
import { untilRedisReady } from '../src/runtime/redis/redis-ready.ts';
import { watchRedisConnection, type RedisWatchLogger } from '../src/runtime/redis/redis-watch.ts';
import { deploymentPrefix, redisAddress } from '../src/runtime/redis/redis-target.ts';
import { deliveryLogEntry } from '../queues/delivery-log-entry.ts';
import { undeliveredNotesKey } from '../queues/delivery-failures.ts';
import { createApprovalRuntime } from './approval-runtime.ts';
import { createInspectWiring, processRedactor } from './inspect-wiring.ts';
import { createClosers, type Closers } from './closers.ts';
import { registerPeerTools } from '../channels/a2a/ask-peer.ts';
import { wireChannels, type WiredChannels } from './channel-wiring.ts';
import { createAppScheduler, enabledChannelIds, registerNotify } from './proactive-wiring.ts';
import { createSingletonRunner } from './singleton-runner.ts';
import { wireSenders } from './sender-wiring.ts';
import { createMetrics } from './metrics.ts';
import { modelFromEnv } from './model-from-env.ts';
import type { ServiceCore } from './service-core.ts';
import type { Service, ServiceOptions } from './service-options.ts';
import { redisOptions } from '../queues/redis-connections.ts';
import { startWebRole } from './web-role.ts';
import { startWorkerRole } from './worker-role.ts';

export type { Service, ServiceOptions, ServiceRole } from './service-options.ts';

/** Where the key of signed artifact links is kept (`<prefix>:artifacts:secret:links`). */
const ARTIFACT_SECRET_PURPOSE = 'artifacts:secret:links';

/** The order in which a process closes what it opened: the HTTP server first, Redis last. */
const CLOSE_ORDER = { web: 1, workers: 2, inbound: 3, turns: 4, approvals: 5, scheduler: 6, queueStats: 7, channels: 8, redis: 9 } as const;

/** How long a starting process waits for Redis, in milliseconds. */
const REDIS_START_TIMEOUT_MS = 10_000;

/**
 * Opens the shared fail-fast client (see `serviceRedisOptions`) and waits until it is ready.
 *
 * @param embedded - Whether `url` is the private Redis `npm start` started (else `REDIS_URL`).
 * @throws SwitchboardError `redis.unavailable` naming the address (never the password), where it
 *   came from and what to check, when Redis is not ready within 10 s.
 */
async function connectRedis(url: string, embedded: boolean, logger: RedisWatchLogger): Promise<Redis> {
  const redis = createRedisClient(url, serviceRedisOptions());
  watchRedisConnection(redis, logger, 'commands');
  try {
    await untilRedisReady(redis, REDIS_START_TIMEOUT_MS);
  } catch (error) {
    redis.disconnect();
    const address = redisAddress(url);
    const fix = embedded ? 'the private redis-server started but does not answer: look at its log in .data/redis' : 'check that Redis runs there and that REDIS_URL points at it';
    const source = embedded ? 'the private Redis' : 'REDIS_URL';
    throw new SwitchboardError('redis.unavailable', `Redis at ${address} (${source}) did not answer within ${String(REDIS_START_TIMEOUT_MS / 1000)} s: ${fix}.`, { cause: error, details: { address, variable: 'REDIS_URL' } });
  }
  return redis;
}

/**
 * Starts one switchboard process: the HTTP server (web roles) and the inbound and turn workers
 * and channel listeners (worker roles), wired to Redis, the app folder and the model.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  const { env, logger } = options;
  const prefix = deploymentPrefix(options.redisUrl, options.prefix);
  const connection = redisOptions(options.redisUrl);
  const modules = options.channels ?? CHANNEL_MODULES;
  const enabledChannels = enabledChannelIds(modules, env);
  const tenantId = options.tenantId ?? 'default';
  const late: { channels?: WiredChannels } = {};
  const registry = createToolRegistry();
  const app = await loadApp({ dir: env.appDir, defaultModel: DEFAULT_ACTOR_MODEL, registry, environment: env.lookup, registerBuiltins: (tools, known) => {
    registerNotify(enabledChannels, () => late.channels)(tools, known);
    registerPeerTools(tools, known.peers);
  } });
  const envModel = modelFromEnv(env);
  const modelStatus = options.model === undefined ? envModel : { configured: true, missing: [] };
  const redis = await connectRedis(options.redisUrl, env.redis.mode === 'embedded', logger);
  const closers = createClosers((error) => { logger.warn({ err: error }, 'close failed'); });
  closers.add(CLOSE_ORDER.redis, () => closeRedis(redis));
  try {
    return await assemble({ options, prefix, connection, modules, enabledChannels, tenantId, late, registry, app, envModel, modelStatus, redis, closers });
  } catch (error) {
    // A start-up that fails half-way closes what it opened, so the process can exit.
    await closers.closeAll();
    throw error;
  }
}

/** What {@link startService} has made before it assembles the rest. */
interface AssemblyScope {
  readonly options: ServiceOptions;
  readonly prefix: string;
  readonly connection: ReturnType<typeof redisOptions>;
  readonly modules: readonly ChannelModule[];
  readonly enabledChannels: readonly string[];
  readonly tenantId: string;
  readonly late: { channels?: WiredChannels };
  readonly registry: ToolRegistry;
  readonly app: LoadedApp;
  readonly envModel: ReturnType<typeof modelFromEnv>;
  readonly modelStatus: { readonly configured: boolean; readonly missing: readonly string[] };
  readonly redis: Redis;
  /** Each thing opened is registered here as it is made. */
  readonly closers: Closers;
}

/** Opens the queues, stores and channels and starts the roles, registering each in `closers`. */
async function assemble(scope: AssemblyScope): Promise<Service> {
  const { options, prefix, connection, modules, enabledChannels, tenantId, late, registry, app, envModel, modelStatus, redis, closers } = scope;
  const { env, logger, role } = options;
  const metrics = createMetrics();
  // The producers ride on the shared client: a message's accept and its turn's scheduling then
  // come back together after an outage, when `/readyz` (which pings this client) says so.
  const inboundQueue = createInboundQueue({ connection: redis, prefix });
  closers.add(CLOSE_ORDER.inbound, () => inboundQueue.close());
  const turnQueue = createTurnQueue({ connection: redis, prefix });
  closers.add(CLOSE_ORDER.turns, () => turnQueue.close());
  // A turn's begin also says whether the session has notes of failed deliveries to tell.
  const sessions = createSessionStore({ redis, prefix, notesKey: (sessionId) => undeliveredNotesKey(prefix, sessionId), beginsTurns: role !== 'web' });
  // A process that also runs turns (worker roles) runs a message's turn at once, inline.
  const inlineTurns: ServiceCore['inlineTurns'] = {};
  // The inline turns' claim goes on `redis`, the sessions' own connection, right behind the accept.
  const startTurn = async (sessionId: string, key: string, accepted: Promise<unknown>): Promise<void> => {
    // Awaited, not returned: an async function handing back a promise costs it two more ticks.
    if (inlineTurns.start !== undefined) {
      await inlineTurns.start(sessionId, key, accepted);
      return;
    }
    await accepted;
    await turnQueue.schedule(sessionId, key);
  };
  const intakeOptions = {
    sessions,
    scheduleTurn: (sessionId: string, key: string) => startTurn(sessionId, key, Promise.resolve()),
    startTurn,
    decisions: inboundQueue,
    textRepliesDecide: (channel: string) => late.channels?.adaptors.get(channel)?.approvals.textReplies === true,
  };
  // Schedules and the service itself enqueue here; what channels take in goes through channelIntake.
  const intake = createInboundIntake(intakeOptions);
  const approvals = createApprovalStore({ redis, prefix });
  // Secrets never reach the log or the captures (service/inspect-wiring.ts).
  const redactor = processRedactor(env, app);
  const eventLog = createEventLog({
    redis,
    prefix,
    redact: redactor.json,
    ...(options.eventLogArchive === undefined ? {} : { archive: options.eventLogArchive }),
    onArchiveError: (error) => { logger.warn({ err: error }, 'event log archive failed'); },
  });
  // The session store keeps the conversation index at its default layout, the one this reads.
  const inspect = createInspectWiring({ app, redis, prefix, embeddedRedis: env.redis.mode === 'embedded', redactor, log: eventLog, logger });
  const senders = wireSenders({
    app, env, redis, prefix, metrics, eventLog, logger,
    accept: (injection) => acceptIntoMailbox(intakeOptions, injection),
    channels: () => late.channels,
    ...(options.senderStore === undefined ? {} : { store: options.senderStore }),
  });
  // Who may write is decided here, before a message costs a turn (see service/sender-wiring.ts).
  const channelIntake = createInboundIntake({ ...intakeOptions, senders: senders.gate });
  const artifacts = createRedisArtifactStore({ redis, prefix });
  const artifactSecret = await keptSecret({ redis, prefix, purpose: ARTIFACT_SECRET_PURPOSE });
  const approvalRuntime = createApprovalRuntime({ store: approvals, turnQueue, connection, prefix, logger, log: eventLog });
  closers.add(CLOSE_ORDER.approvals, () => approvalRuntime.close());
  const channels = await wireChannels({
    modules,
    ...(options.signalDelayMs === undefined ? {} : { signalDelayMs: options.signalDelayMs }),
    context: {
      env,
      // The sessions' and the event log's connection: a sender that `writesInOrder` relies on it.
      redis,
      prefix,
      tenantId,
      logger,
      app,
      registry,
      clock: () => new Date(),
      modelStatus: () => modelStatus,
      enqueue: async (injection, condition) => {
        const result = await channelIntake.enqueue(injection, condition);
        if (result.lapsed !== true) metrics.count('switchboard_injections_total', { channel: injection.channel, duplicate: String(result.duplicate) });
        return result;
      },
      wake: (channel, conversationKey, reason) => turnQueue.schedule(sessionIdOf(tenantId, channel, conversationKey), reason),
      decide: (attempt) => approvalRuntime.decide(attempt),
      approvals,
      artifacts,
      artifactUrl: (artifactId) => signArtifactUrl({ publicUrl: env.publicUrl, artifactId, secret: artifactSecret, now: new Date() }),
      reportDeliveryStatus: (report) => inspect.reportDeliveryStatus(report),
    },
    createOutbound: (senders) => createOutbound({
      connection,
      prefix,
      senders,
      onError: (error) => { logger.error({ err: error }, 'outbound'); },
      onAttempt: async (event) => {
        metrics.count('switchboard_deliveries_total', { channel: event.delivery.channel, outcome: event.outcome });
        if (event.delivery.trace !== undefined) await eventLog.append(event.delivery.trace.sessionId, deliveryLogEntry(event));
        await inspect.noteAttempt(event);
      },
    }),
    runSingleton: createSingletonRunner({ redis, prefix, logger }),
  });
  closers.add(CLOSE_ORDER.channels, () => channels.close());
  late.channels = channels;
  approvalRuntime.attach(channels);
  const scheduler = createAppScheduler({ app, enabledChannels, tenantId, connection, prefix, logger, enqueue: (injection) => intake.enqueue(injection) });
  closers.add(CLOSE_ORDER.scheduler, () => scheduler.close());
  await scheduler.sync();
  const core: ServiceCore = {
    options, env, logger, prefix, app, registry,
    actors: resolveActors(app.actors, registry),
    partTypes: createPartTypeRegistry(),
    turnStates: createTurnStateRegistry(),
    model: options.model ?? envModel.client,
    modelStatus, redis, metrics, inboundQueue, turnQueue, inlineTurns,
    queueStats: createQueueStats({ connection: redis, prefix, queues: ['inbound', 'turns', 'approval-expiry'] }),
    approvals, approvalRuntime,
    sessions,
    eventLog,
    artifacts,
    artifactSecret,
    channels,
    scheduler,
    senders,
    inspect,
  };
  closers.add(CLOSE_ORDER.queueStats, () => core.queueStats.close());
  const web = role === 'worker' ? undefined : await startWebRole(core);
  if (web !== undefined) closers.add(CLOSE_ORDER.web, web.close);
  const stopWorkers = role === 'web' ? undefined : startWorkerRole(core);
  if (stopWorkers !== undefined) closers.add(CLOSE_ORDER.workers, stopWorkers);

  logger.info({ url: web?.url, app: app.name, actors: [...core.actors.keys()], channels: [...channels.adaptors.keys()], model: modelStatus.configured ? 'configured' : 'missing' }, 'switchboard started');
  return { url: web?.url, close: () => closers.closeAll() };
}
