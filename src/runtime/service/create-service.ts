import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChannelModule } from '../../../channels/channel.ts';
import { CHANNEL_MODULES } from '../../../channels/registry.ts';
import { createOutbound } from '../../../queues/outbound-queue.ts';
import { createInboundQueue, createInboundWorker } from '../../../queues/inbound-queue.ts';
import { createTurnQueue, createTurnWorker } from '../../../queues/turn-queue.ts';
import { createApprovalExpiry } from '../../../queues/approval-expiry-queue.ts';
import { createQueueStats } from '../../../queues/queue-stats.ts';
import { approvalsReady } from '../actor/approval-gate.ts';
import { approverPlan } from '../actor/approval-policy-config.ts';
import { createApprovalStore } from '../approvals/redis-approval-store.ts';
import type { ApprovalRecord, DecisionAttempt, DecisionOutcome } from '../approvals/approval-types.ts';
import type { EmittedPart } from '../session/turn-record.ts';
import { createAdminRoutes } from './admin-routes.ts';
import type { SwitchboardEnv } from '../../config/env-types.ts';
import { DEFAULT_ACTOR_MODEL } from '../../config/models.ts';
import { createSurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import { createPartTypeRegistry } from '../../protocol/parts/canonical-part-types.ts';
import { buildRespondTool } from '../../protocol/respond/respond-schema.ts';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { createTurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import { resolveActors } from '../actor/resolved-actor.ts';
import { runSessionTurns } from '../actor/turn-runner.ts';
import { loadApp } from '../app/load-app.ts';
import { CHANNEL_NAMES, type ChannelName } from '../app/app-types.ts';
import { createSettlement } from '../delivery/settle-turn.ts';
import { createTurnDelivery } from '../delivery/turn-delivery.ts';
import { createRouter, type Route } from '../http/router.ts';
import { createAnthropicModelClient } from '../model/anthropic-model-client.ts';
import type { ModelClient } from '../model/model-types.ts';
import { createUnconfiguredModelClient } from '../model/unconfigured-model-client.ts';
import { createToolRouter } from '../router/tool-router.ts';
import { createEventLog } from '../session/event-log.ts';
import { sessionIdOf } from '../session/session-id.ts';
import { createSessionStore } from '../session/session-store.ts';
import { createMetrics } from './metrics.ts';
import { createOpsRoutes } from './ops-routes.ts';
import { wireChannels, type WiredChannels } from './channel-wiring.ts';
import { createInboundApprovals } from './inbound-approvals.ts';
import { announceApproval, approvalDestinations } from './approval-announcements.ts';

/** Which parts of switchboard a process runs. */
export type ServiceRole = 'all' | 'web' | 'worker';

/** Options of {@link startService}. */
export interface ServiceOptions {
  readonly env: SwitchboardEnv;
  readonly role: ServiceRole;
  /** The Redis to use (the embedded one's URL when `REDIS_URL` is unset). */
  readonly redisUrl: string;
  readonly logger: Logger;
  /** Overrides the model client (tests, the benchmark). Default: the Anthropic SDK from the environment. */
  readonly model?: ModelClient;
  /** Key and queue prefix in Redis. Default `sb`. */
  readonly prefix?: string;
  /** Port to listen on; default `env.port`. 0 picks a free one. */
  readonly port?: number;
  /** Turns run at once by this process. Default 16. */
  readonly turnConcurrency?: number;
  /** How long a session lock lives without a heartbeat, in ms. Default 30000. */
  readonly sessionLockTtlMs?: number;
  /** How long a worker's hold on a job lives without renewal, in ms (crash detection). Default 15000. */
  readonly jobLockDurationMs?: number;
  /** Overrides every tool's approval expiry, in ms (tests, demos). Default: per tool from switchboard.yaml. */
  readonly approvalTtlMs?: number;
  /** How long a `delegated` turn waits for its peer, in ms. Default 10 minutes. */
  readonly delegationTimeoutMs?: number;
  /** The tenant of every conversation. Default `default`. */
  readonly tenantId?: string;
  /** The channels this process knows. Default every channel in `channels/registry.ts`. */
  readonly channels?: readonly ChannelModule[];
}

/** A running switchboard process. */
export interface Service {
  /** The HTTP base URL, when this role serves HTTP. */
  readonly url: string | undefined;
  /** Stops taking work, finishes what runs, closes every connection it opened. */
  close(): Promise<void>;
}

function modelFromEnv(env: SwitchboardEnv): { client: ModelClient; configured: boolean; missing: string[] } {
  const customEndpoint = env.anthropic.baseUrl !== 'https://api.anthropic.com';
  if (env.anthropic.apiKey === undefined && !customEndpoint) {
    const missing = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'];
    return { client: createUnconfiguredModelClient(missing), configured: false, missing };
  }
  const sdk = new Anthropic({ apiKey: env.anthropic.apiKey ?? 'not-needed', baseURL: env.anthropic.baseUrl, maxRetries: 2 });
  return { client: createAnthropicModelClient({ client: sdk }), configured: true, missing: [] };
}

/**
 * Starts one switchboard process: the HTTP server (web roles) and the inbound and turn workers
 * (worker roles), wired to Redis, the app folder and the model.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  const { env, logger, role } = options;
  const prefix = options.prefix ?? 'sb';
  const tenantId = options.tenantId ?? 'default';
  const runsWeb = role === 'all' || role === 'web';
  const runsWorker = role === 'all' || role === 'worker';

  const partTypes = createPartTypeRegistry();
  const turnStates = createTurnStateRegistry();
  const registry = createToolRegistry();
  const app = await loadApp({ dir: env.appDir, defaultModel: DEFAULT_ACTOR_MODEL, registry });
  const actors = resolveActors(app.actors, registry);
  const envModel = modelFromEnv(env);
  const model = options.model ?? envModel.client;
  const modelStatus = options.model === undefined ? envModel : { configured: true, missing: [] };

  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 });
  const metrics = createMetrics();
  const inboundQueue = createInboundQueue({ connection: { ...redisOptions(options.redisUrl) }, prefix });
  const turnQueue = createTurnQueue({ connection: redisOptions(options.redisUrl), prefix });
  const approvals = createApprovalStore({ redis, prefix });
  const sessions = createSessionStore({ redis, prefix });
  const queueStats = createQueueStats({ connection: redisOptions(options.redisUrl), prefix, queues: ['inbound', 'turns', 'approval-expiry'] });
  const closers: (() => Promise<unknown>)[] = [];

  let channels: WiredChannels | undefined;
  /** After a decision or an expiry: stop the expiry job, update every card that shows it, resume the turn. */
  const afterDecision = async (record: ApprovalRecord): Promise<void> => {
    await expiry.cancel(record.approvalId);
    if (record.status !== 'pending' && channels !== undefined) {
      for (const destination of approvalDestinations(record, channels.adaptors)) {
        await channels.send(destination, { type: 'approval-update', record }, `approval:${record.approvalId}|${destination.channel}:${destination.address}`, { sessionId: record.sessionId, turnId: record.turnId });
      }
    }
    await turnQueue.schedule(record.sessionId, `resume-${record.approvalId}`);
  };
  const decide = async (attempt: DecisionAttempt): Promise<DecisionOutcome> => {
    const outcome = await approvals.decide(attempt);
    logger.info({ approvalId: attempt.approvalId, decision: attempt.decision, by: attempt.by, ok: outcome.ok, refusal: outcome.ok ? undefined : outcome.refusal }, 'approval decision');
    if (outcome.ok) await afterDecision(outcome.record);
    return outcome;
  };
  const expiry = createApprovalExpiry({
    connection: redisOptions(options.redisUrl),
    prefix,
    onExpire: async (approvalId) => {
      const outcome = await approvals.expire(approvalId);
      if (outcome.ok) await afterDecision(outcome.record);
    },
    onError: (error) => { logger.error({ err: error }, 'approval expiry'); },
  });

  const wired = await wireChannels({
    modules: options.channels ?? CHANNEL_MODULES,
    context: {
      env,
      redis,
      prefix,
      tenantId,
      logger,
      app,
      clock: () => new Date(),
      modelStatus: () => ({ configured: modelStatus.configured, missing: modelStatus.missing }),
      enqueue: async (injection) => {
        const result = await inboundQueue.enqueue(injection);
        metrics.count('switchboard_injections_total', { channel: injection.channel, duplicate: String(result.duplicate) });
        return result;
      },
      decide,
      approvals,
    },
    createOutbound: (senders) => createOutbound({ connection: redisOptions(options.redisUrl), prefix, senders, onError: (error) => { logger.error({ err: error }, 'outbound'); } }),
    runSingleton: () => { throw new Error('singleton listeners are not available yet'); },
  });
  channels = wired;

  let server: Server | undefined;
  let url: string | undefined;
  if (runsWeb) {
    const routes: Route[] = [
      ...wired.routes,
      ...createAdminRoutes({
        approvals,
        adminToken: env.adminToken,
        operations: async () => ({
          queues: await queueStats.counts(),
          sessions: (await sessions.activeTurns()).map((turn) => ({
            sessionId: turn.sessionId,
            turnId: turn.turnId,
            actor: turn.actor,
            status: turn.status,
            startedAt: turn.startedAt,
            ...(turn.wait === undefined ? {} : { waitingFor: `${turn.wait.turnState}${turn.wait.ref === undefined ? '' : ` ${turn.wait.ref}`} until ${turn.wait.until}` }),
          })),
        }),
      }),
      ...createOpsRoutes({ redis, metrics, env, app, actors: [...actors.values()].map((actor) => actor.config), adminToken: env.adminToken }),
    ];
    server = createServer(createRouter(routes, (error, context) => { logger.warn({ err: error, path: context.url.pathname }, 'request failed'); }));
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(options.port ?? env.port, () => { resolve(); });
    });
    const port = (listening.address() as AddressInfo).port;
    url = `http://localhost:${port}`;
    closers.push(() => new Promise<void>((resolve) => {
      listening.closeAllConnections();
      listening.close(() => { resolve(); });
    }));
  }

  if (runsWorker) {
    const store = sessions;
    const log = createEventLog({ redis, prefix });
    wired.start();
    const output = createTurnDelivery({
      partTypes,
      channels: wired.deliveries,
      log,
      settle: createSettlement({ partTypes, turnStates, surfaces: createSurfaceTemplateRegistry() }),
    });
    expiry.startWorker();
    const deps = {
      model: metrics.wrapModel(model),
      actors,
      entryActor: app.entryActor,
      scheduleWake: (sessionId: string, key: string, at: Date) => turnQueue.schedule(sessionId, key, { delayMs: at.getTime() - Date.now() }),
      ...(options.delegationTimeoutMs === undefined ? {} : { delegationTimeoutMs: options.delegationTimeoutMs }),
      channelRoute: (channel: string) => (isChannelName(channel) ? app.channels[channel] : undefined),
      registry,
      partTypes,
      turnStates,
      respondTool: buildRespondTool(partTypes, turnStates),
      store,
      log,
      output,
      router: createToolRouter(),
      approvals: {
        store: approvals,
        plan: (tool: string) => {
          const plan = approverPlan(tool, app.approvals, app.people);
          return options.approvalTtlMs === undefined ? plan : { ...plan, ttlMs: options.approvalTtlMs };
        },
        scheduleExpiry: (approvalId: string, at: Date) => expiry.schedule(approvalId, at),
        announce: async (approvalId: string, emitted: EmittedPart) => {
          const record = await approvals.get(approvalId);
          if (record !== undefined) await announceApproval(wired, record, emitted);
        },
      },
    };
    const turnWorker = createTurnWorker({
      connection: redisOptions(options.redisUrl),
      prefix,
      concurrency: options.turnConcurrency ?? 16,
      ...(options.sessionLockTtlMs === undefined ? {} : { lockTtlMs: options.sessionLockTtlMs }),
      ...(options.jobLockDurationMs === undefined ? {} : { jobLockDurationMs: options.jobLockDurationMs, stalledIntervalMs: options.jobLockDurationMs }),
      process: async (sessionId, lease) => {
        await runSessionTurns(deps, sessionId, lease.signal);
      },
      // A decision can arrive while the suspending job still holds the session: its resume job then
      // completes at once, and this check, run when the lock is released, picks the turn up.
      hasWork: async (sessionId) => {
        if (await store.hasWork(sessionId)) return true;
        const turn = await store.currentTurn(sessionId);
        if (turn?.status !== 'waiting' || turn.pendingApprovals === undefined) return false;
        return approvalsReady(deps.approvals, turn.pendingApprovals, Date.now());
      },
      onError: (error) => { logger.error({ err: error }, 'turn worker'); },
    });
    const inboundApprovals = createInboundApprovals({ channels: wired, store: approvals, decide });
    const inboundWorker = createInboundWorker({
      connection: redisOptions(options.redisUrl),
      prefix,
      process: async (injection) => {
        if (await inboundApprovals.handle(injection)) return;
        const sessionId = sessionIdOf(injection.tenantId, injection.channel, injection.conversationKey);
        const fresh = await store.accept(sessionId, injection);
        if (fresh) await log.append(sessionId, { type: 'injection', data: { id: injection.id, kind: injection.kind, channel: injection.channel } });
        await turnQueue.schedule(sessionId, injection.id);
      },
      onError: (error) => { logger.error({ err: error }, 'inbound worker'); },
    });
    closers.push(() => inboundWorker.close(), () => turnWorker.close());
  }

  logger.info({ url, app: app.name, actors: [...actors.keys()], model: modelStatus.configured ? 'configured' : 'missing' }, 'switchboard started');
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= (async () => {
        for (const close of closers) await close().catch((error: unknown) => { logger.warn({ err: error }, 'close failed'); });
        await inboundQueue.close();
        await turnQueue.close();
        await expiry.close();
        await queueStats.close();
        await wired.close();
        await redis.quit();
      })();
      return closing;
    },
  };
}

function isChannelName(channel: string): channel is ChannelName {
  return (CHANNEL_NAMES as readonly string[]).includes(channel);
}

function redisOptions(url: string): { host: string; port: number; password?: string; username?: string; db?: number; tls?: object } {
  const parsed = new URL(url);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined;
  return {
    host: parsed.hostname,
    port: Number(parsed.port === '' ? 6379 : parsed.port),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(db === undefined || Number.isNaN(db) ? {} : { db }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
