/**
 * What every role of a switchboard process shares: the app and its registries, the model, Redis,
 * the queues' producers, the stores and the wired channels. Built once by `startService`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { InboundQueue } from '../queues/inbound-queue.ts';
import type { QueueStats } from '../queues/queue-stats.ts';
import type { Scheduler } from '../queues/schedule-queue.ts';
import type { TurnQueue } from '../queues/turn-queue.ts';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import type { PartTypeRegistry } from '../src/protocol/parts/part-type-registry.ts';
import type { ToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import type { TurnStateRegistry } from '../src/protocol/turn-states/turn-state-registry.ts';
import type { ResolvedActor } from '../src/runtime/actor/resolved-actor.ts';
import type { LoadedApp } from '../src/runtime/app/app-types.ts';
import type { ApprovalStore } from '../src/runtime/approvals/approval-types.ts';
import type { ArtifactStore } from '../src/runtime/artifacts/artifact-store.ts';
import type { ModelClient } from '../src/runtime/model/model-types.ts';
import type { BatchEventLog } from '../src/runtime/session/event-log.ts';
import type { SessionStore } from '../src/runtime/session/session-store.ts';
import type { ApprovalRuntime } from './approval-runtime.ts';
import type { InspectWiring } from './inspect-wiring.ts';
import type { WiredChannels } from './channel-wiring.ts';
import type { Metrics } from './metrics.ts';
import type { SenderWiring } from './sender-wiring.ts';
import type { ServiceOptions } from './service-options.ts';

/** The shared objects of one process. */
export interface ServiceCore {
  readonly options: ServiceOptions;
  readonly env: SwitchboardEnv;
  readonly logger: Logger;
  readonly prefix: string;
  readonly app: LoadedApp;
  readonly registry: ToolRegistry;
  readonly actors: ReadonlyMap<string, ResolvedActor>;
  readonly partTypes: PartTypeRegistry;
  readonly turnStates: TurnStateRegistry;
  readonly model: ModelClient;
  readonly modelStatus: { readonly configured: boolean; readonly missing: readonly string[] };
  readonly redis: Redis;
  readonly metrics: Metrics;
  readonly inboundQueue: InboundQueue;
  readonly turnQueue: TurnQueue;
  /**
   * Set by the worker role of a process that also takes messages in: runs a new message's turn
   * in this process at once (see queues/inline-turns.ts); unset, the intake schedules a job.
   */
  readonly inlineTurns: { start?: (sessionId: string, key: string, accepted?: Promise<unknown>) => Promise<void> };
  readonly queueStats: QueueStats;
  readonly approvals: ApprovalStore;
  readonly approvalRuntime: ApprovalRuntime;
  readonly sessions: SessionStore;
  /** The per-session event log. */
  readonly eventLog: BatchEventLog;
  /** Files people sent and turns produced, served by signed links. */
  readonly artifacts: ArtifactStore;
  /** The key of the signed artifact links. Never logged. */
  readonly artifactSecret: string;
  readonly channels: WiredChannels;
  /** The app's `schedules:`; its worker runs in worker roles. */
  readonly scheduler: Scheduler;
  /** Who may write on each channel: the policies, the store of approved senders and pairing codes. */
  readonly senders: SenderWiring;
  /**
   * What the inspector keeps (`service/inspect-wiring.ts`): the conversation index, captured model
   * calls, the redactor, the turn runner's recording.
   */
  readonly inspect: InspectWiring;
}
