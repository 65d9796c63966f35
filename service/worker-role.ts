/**
 * The worker role: the inbound worker (decisions taken by channels' buttons and replies), the
 * turn worker (one turn per session at a time), approval expiries, the channels' outbound workers
 * and listeners.
 */
import { createInboundWorker } from '../queues/inbound-queue.ts';
import { createTurnWorker } from '../queues/turn-queue.ts';
import type { TurnFailure } from '../queues/turn-rescue.ts';
import { DEFAULT_TRANSLATOR_MODEL } from '../src/config/models.ts';
import { cacheTranslationsByTurn } from '../src/protocol/envelope/llm-context.ts';
import { buildRespondTool } from '../src/protocol/respond/respond-schema.ts';
import { approvalsReady, type ApprovalGate } from '../src/runtime/actor/approval-gate.ts';
import { approverPlan } from '../src/runtime/actor/approval-policy-config.ts';
import { logModelFailures } from '../src/runtime/model/model-failure-log.ts';
import { beginTurn, runSessionTurns } from '../src/runtime/actor/turn-runner.ts';
import type { TurnRunnerDeps } from '../src/runtime/actor/turn-runner-deps.ts';
import type { MidTurnMode } from '../src/runtime/actor/actor-config.ts';
import { approvalWords, createAppSurfaceRegistry } from '../src/runtime/app/app-surfaces.ts';
import { ROUTABLE_CHANNELS, type RoutableChannel } from '../src/runtime/app/app-types.ts';
import { createSettlement } from '../src/runtime/delivery/settle-turn.ts';
import { createTurnDelivery } from '../src/runtime/delivery/turn-delivery.ts';
import { createModelTranslator } from '../src/runtime/model/llm-context-translator.ts';
import { createToolRouter } from '../src/runtime/router/tool-router.ts';
import { createBufferedEventLog, type BufferedEventLog } from '../src/runtime/session/buffered-event-log.ts';
import { sessionWorkKeys, type TurnInProgress } from '../src/runtime/session/session-store.ts';
import { announceApproval } from './approval-announcements.ts';
import { turnBudgets } from './budget-wiring.ts';
import { createInboundApprovals } from './inbound-approvals.ts';
import { acceptIntoMailbox } from '../channels/kit/inbound-intake.ts';
import type { ServiceCore } from './service-core.ts';
import { redisOptions } from '../queues/redis-connections.ts';
import { createDeliveryFailures } from '../queues/delivery-failures.ts';

function isChannelName(channel: string): channel is RoutableChannel {
  return (ROUTABLE_CHANNELS as readonly string[]).includes(channel);
}

/** The app's route of `channel`, with the channel's own `midTurn` when it sets one. */
function channelRoute(core: ServiceCore, channel: string): { readonly actor: string; readonly midTurn?: MidTurnMode } | undefined {
  const route = isChannelName(channel) ? core.app.channels[channel] : undefined;
  const midTurn = core.channels.adaptors.get(channel)?.midTurn;
  if (midTurn === undefined) return route;
  return { actor: route?.actor ?? core.app.entryActor, midTurn };
}

function approvalGate(core: ServiceCore): ApprovalGate {
  const { app, options, approvals, channels } = core;
  return {
    store: approvals,
    plan: (tool) => {
      const plan = approverPlan(tool, app.approvals, app.people);
      return options.approvalTtlMs === undefined ? plan : { ...plan, ttlMs: options.approvalTtlMs };
    },
    scheduleExpiry: (approvalId, at) => core.approvalRuntime.scheduleExpiry(approvalId, at),
    withdraw: (approvalId) => core.approvalRuntime.withdraw(approvalId),
    describe: (tool) => approvalWords({ app, tools: core.registry }, tool),
    announce: async (approvalId, emitted) => {
      const record = await approvals.get(approvalId);
      return record === undefined ? [] : announceApproval(channels, record, emitted);
    },
  };
}

function turnRunnerDeps(core: ServiceCore, log: BufferedEventLog, approvals: ApprovalGate): TurnRunnerDeps {
  const { app, options, partTypes, turnStates, turnQueue, channels } = core;
  const budgets = turnBudgets(core);
  // Deliveries given up with an unknown outcome, for the person's next turn (queues/unconfirmed-send.ts).
  const undelivered = createDeliveryFailures({ redis: core.redis, prefix: core.prefix });
  return {
    model: core.metrics.wrapModel(logModelFailures(core.model, { endpoint: core.env.anthropic.baseUrl, redact: core.inspect.redactor.text, warn: (fields, message) => { core.logger.warn(fields, message); } }), core.inspect.turns.costUsd),
    actors: core.actors,
    entryActor: app.entryActor,
    scheduleWake: (sessionId, key, at) => turnQueue.schedule(sessionId, key, { delayMs: at.getTime() - Date.now() }),
    ...(options.delegationTimeoutMs === undefined ? {} : { delegationTimeoutMs: options.delegationTimeoutMs }),
    channelRoute: (channel) => channelRoute(core, channel),
    stopRequested: (record) => channels.adaptors.get(record.replyTo.channel)?.stopRequested?.(record.replyTo) ?? Promise.resolve(false),
    registry: core.registry,
    partTypes,
    turnStates,
    respondTool: buildRespondTool(partTypes, turnStates),
    store: core.sessions,
    log,
    output: createTurnDelivery({ partTypes, channels: channels.deliveries, log, approvals: core.approvals, onError: (error) => { core.logger.warn({ err: error }, 'live signal not sent'); }, settle: createSettlement({ partTypes, turnStates, surfaces: createAppSurfaceRegistry({ app, tools: core.registry }), log, translator: cacheTranslationsByTurn(createModelTranslator({ model: core.model, modelName: core.app.config.models?.llmContext ?? DEFAULT_TRANSLATOR_MODEL })) }) }),
    router: createToolRouter(),
    takeUndelivered: (sessionId) => undelivered.takeForSession(sessionId),
    settledLogWrite: (sessionId, last) => log.takeWrite(sessionId, last),
    saveWithLog: (record) => log.flushWith(record.sessionId, (logWrite) => core.sessions.saveTurn(record, logWrite)),
    approvals,
    inspect: core.inspect.turns,
    ...(budgets === undefined ? {} : { budgets }),
  };
}

/** Logs a turn job that failed for good: a warning when a rescue is scheduled, an error when none is left. */
function logTurnFailure(logger: ServiceCore['logger'], { sessionId, error, rescue, gaveUp }: TurnFailure): void {
  if (gaveUp) logger.error({ err: error, sessionId }, 'turn failed for good after its rescues; its messages wait for the session\'s next message');
  else logger.warn({ err: error, sessionId, rescue }, 'turn failed for good; its session runs again in a rescue job');
}

/** Starts the worker role; resolves to what closes it. */
export function startWorkerRole(core: ServiceCore): () => Promise<void> {
  const { options, logger, prefix, sessions: store } = core;
  const connection = redisOptions(options.redisUrl);
  // The turns' entries are written in batches: before each delivery and when a turn stops.
  const log = createBufferedEventLog(core.eventLog);
  core.channels.start();
  core.approvalRuntime.startWorker();
  core.scheduler.startWorker();
  const gate = approvalGate(core);
  const deps = turnRunnerDeps(core, log, gate);
  const turnWorker = createTurnWorker<TurnInProgress | undefined>({
    connection,
    prefix,
    concurrency: options.turnConcurrency ?? core.env.turnConcurrency,
    ...(options.sessionLockTtlMs === undefined ? {} : { lockTtlMs: options.sessionLockTtlMs }),
    ...(options.jobLockDurationMs === undefined ? {} : { jobLockDurationMs: options.jobLockDurationMs }),
    process: async (sessionId, lease) => {
      // The turn that leaves the mailbox empty lets the lock go in its last script.
      await runSessionTurns(deps, sessionId, lease.signal, lease.lock, lease.first);
    },
    // An inline turn's begin leaves right behind its lock's claim, on the same connection.
    behindClaim: (sessionId, lock) => beginTurn(deps, sessionId, lock),
    // A decision can arrive while the suspending job still holds the session: its resume job then
    // completes at once, and this check, run when the lock is released, picks the turn up.
    hasWork: (sessionId) => store.hasWork(sessionId, (pending) => approvalsReady(gate, pending, Date.now()), deps.stopRequested),
    onError: (error) => { logger.error({ err: error }, 'turn worker'); },
    // A turn job that failed for good (e.g. through a long outage) leaves no message behind.
    rescue: { queue: core.turnQueue, onFailed: (failure) => { logTurnFailure(logger, failure); } },
    inline: { queue: core.turnQueue, redis: core.redis, workKeys: (sessionId) => sessionWorkKeys(prefix, sessionId) },
  });
  if (turnWorker.startTurn !== undefined) core.inlineTurns.start = turnWorker.startTurn;
  const inboundApprovals = createInboundApprovals({ channels: core.channels, store: core.approvals, decide: (attempt) => core.approvalRuntime.decide(attempt) });
  const inboundWorker = createInboundWorker({
    connection,
    prefix,
    // Decisions only (messages go straight to their mailbox); one that turns out not to decide
    // (its channel no longer takes text decisions) still reaches its session.
    process: async (injection) => {
      if (await inboundApprovals.handle(injection)) return;
      await acceptIntoMailbox({ sessions: store, scheduleTurn: (sessionId, key) => core.turnQueue.schedule(sessionId, key) }, injection);
    },
    onError: (error) => { logger.error({ err: error }, 'inbound worker'); },
  });
  return async () => {
    delete core.inlineTurns.start;
    await inboundWorker.close();
    await turnWorker.close();
  };
}
