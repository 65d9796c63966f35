/**
 * The turn runner's dependencies for a test: the real stores in Redis, the real registries and
 * approval gate, and a turn output that records what a turn emits instead of delivering it.
 */
import type { Redis } from 'ioredis';
import { buildEnvelope } from '../../src/protocol/envelope/envelope-builder.ts';
import type { SurfaceTemplateRegistry } from '../../src/protocol/envelope/surface-templates.ts';
import { createPartTypeRegistry } from '../../src/protocol/parts/canonical-part-types.ts';
import { buildRespondTool } from '../../src/protocol/respond/respond-schema.ts';
import type { ToolRegistry } from '../../src/protocol/tools/tool-registry.ts';
import { createTurnStateRegistry } from '../../src/protocol/turn-states/turn-state-registry.ts';
import type { ApprovalGate } from '../../src/runtime/actor/approval-gate.ts';
import { approverPlan } from '../../src/runtime/actor/approval-policy-config.ts';
import { resolveActors } from '../../src/runtime/actor/resolved-actor.ts';
import type { TurnOutput } from '../../src/runtime/actor/turn-output.ts';
import type { TurnRunnerDeps } from '../../src/runtime/actor/turn-runner-deps.ts';
import type { TurnInspection } from '../../src/runtime/inspect/turn-inspection.ts';
import { approvalWords, createAppSurfaceRegistry } from '../../src/runtime/app/app-surfaces.ts';
import type { ChannelRoute, LoadedApp } from '../../src/runtime/app/app-types.ts';
import type { ApprovalStore } from '../../src/runtime/approvals/approval-types.ts';
import { surfaceDroppedEntry } from '../../src/runtime/delivery/settle-turn.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { createToolRouter } from '../../src/runtime/router/tool-router.ts';
import { createEventLog, type EventLog } from '../../src/runtime/session/event-log.ts';
import { createSessionStore, type SessionStore } from '../../src/runtime/session/session-store.ts';
import type { EmittedPart, TurnRecord } from '../../src/runtime/session/turn-record.ts';
import { testTurnOf, type TestTurn, type TurnRun } from './test-turn.ts';

/** Options of {@link createTestTurnRunner}. */
export interface TestTurnRunnerOptions {
  readonly app: LoadedApp;
  readonly registry: ToolRegistry;
  readonly model: ModelClient;
  readonly redis: Redis;
  readonly prefix: string;
  readonly approvals: ApprovalStore;
  readonly channelRoute: (channel: string) => ChannelRoute | undefined;
  /** What the inspector records beside the log (capture of whole model calls, costs). Default none. */
  readonly inspect?: TurnInspection;
}

/** Runs a session's turns and tells what the last one did. */
export interface TestTurnRunner {
  /** Puts a message in its session's mailbox. */
  accept(sessionId: string, injection: Injection): Promise<void>;
  /** Runs `turns` (the turn runner on these deps) and reports the turn it ran last. */
  run(sessionId: string, turns: (deps: TurnRunnerDeps) => Promise<void>): Promise<TestTurn>;
  /** The parts the last run emitted, in order, with their ids (`<turnId>.<step>.<block>.<part>`). */
  emitted(): readonly EmittedPart[];
}

/** What one run recorded; a new one per run. */
interface Recording {
  emitted: EmittedPart[];
  states: { turnState: string; actor: string }[];
  record?: TurnRecord;
  settledAs?: string;
  envelope?: NonNullable<TurnRun['envelope']>;
}

/**
 * Records what a turn emits; at settlement builds the envelope with `surfaces` (the app's templates
 * and the approval surface), logging each surface left out as `surface_dropped`, as the service does.
 */
function recordingOutput(
  deps: Pick<TurnRunnerDeps, 'partTypes' | 'turnStates'>,
  surfaces: SurfaceTemplateRegistry,
  log: Pick<EventLog, 'append'>,
  current: () => Recording,
): TurnOutput {
  return {
    part: (turn, emitted) => {
      const run = current();
      run.record = turn;
      if (!run.emitted.some((known) => known.partId === emitted.partId)) run.emitted.push(emitted);
      return Promise.resolve();
    },
    state: (turn, turnState, actor) => {
      const run = current();
      run.record = turn;
      run.states.push({ turnState, actor });
      return Promise.resolve();
    },
    settle: async (turn, turnState) => {
      const run = current();
      run.record = turn;
      run.settledAs = turnState;
      if (deps.turnStates.get(turnState)?.emitsEnvelope !== 'full') return;
      const built = await buildEnvelope({
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        finalizedBy: turnState,
        parts: turn.emitted.map(({ part }) => part),
        dataEvents: turn.dataEvents,
        surfaces,
        clock: () => new Date(),
        partTypes: deps.partTypes,
      });
      for (const dropped of built.droppedSurfaces) await log.append(turn.sessionId, surfaceDroppedEntry(turn.turnId, dropped));
      run.envelope = built.envelope;
    },
  };
}

function approvalGate(app: LoadedApp, tools: ToolRegistry, store: ApprovalStore): ApprovalGate {
  return {
    store,
    plan: (tool) => approverPlan(tool, app.approvals, app.people),
    describe: (tool) => approvalWords({ app, tools }, tool),
    // Nothing expires during a test: an approval waits for approve() or deny().
    scheduleExpiry: async () => {},
  };
}

/**
 * `store`, noting each session's turn as this process writes it (begun or saved) and clears it
 * (finished): the turn a run left in Redis, known without scanning every session's key.
 */
function trackingStore(store: SessionStore, active: Map<string, TurnRecord>): SessionStore {
  return {
    ...store,
    async beginTurn(sessionId, create) {
      const progress = await store.beginTurn(sessionId, create);
      if (progress === undefined) active.delete(sessionId);
      else active.set(sessionId, progress.record);
      return progress;
    },
    async saveTurn(record, logWrite) {
      await store.saveTurn(record, logWrite);
      active.set(record.sessionId, record);
    },
    async finishTurn(record, history) {
      const waiting = await store.finishTurn(record, history);
      active.delete(record.sessionId);
      return waiting;
    },
  };
}

/** The turn runner's dependencies on real stores, with a recording output. */
export function createTestTurnRunner(options: TestTurnRunnerOptions): TestTurnRunner {
  const { app, redis, prefix } = options;
  const partTypes = createPartTypeRegistry();
  const turnStates = createTurnStateRegistry();
  const active = new Map<string, TurnRecord>();
  const store = trackingStore(createSessionStore({ redis, prefix }), active);
  const log = createEventLog({ redis, prefix });
  let recording: Recording = { emitted: [], states: [] };
  const deps: TurnRunnerDeps = {
    model: options.model,
    actors: resolveActors(app.actors, options.registry),
    entryActor: app.entryActor,
    channelRoute: options.channelRoute,
    registry: options.registry,
    partTypes,
    turnStates,
    respondTool: buildRespondTool(partTypes, turnStates),
    store,
    log,
    output: recordingOutput({ partTypes, turnStates }, createAppSurfaceRegistry({ app, tools: options.registry }), log, () => recording),
    router: createToolRouter(),
    approvals: approvalGate(app, options.registry, options.approvals),
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  };
  return {
    async accept(sessionId, injection) {
      await store.accept(sessionId, injection);
    },
    async run(sessionId, turns) {
      recording = { emitted: [], states: [] };
      await turns(deps);
      // A turn still in the store waits (for an approval, a peer, a deadline); else the last one recorded settled.
      const record = active.get(sessionId) ?? recording.record;
      if (record === undefined) throw new Error('No turn ran: the message did not reach an actor.');
      const run: TurnRun = { emitted: recording.emitted, states: recording.states, record, ...(recording.settledAs === undefined ? {} : { settledAs: recording.settledAs }), ...(recording.envelope === undefined ? {} : { envelope: recording.envelope }) };
      return testTurnOf(run, await log.read(sessionId, 10_000));
    },
    emitted: () => recording.emitted,
  };
}
