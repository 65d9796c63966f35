/**
 * What every role of a switchboard process shares: the app and its registries, the model, Redis,
 * the queues' producers, the stores and the wired channels. Built once by `startService`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { InboundQueue } from '../../../queues/inbound-queue.ts';
import type { QueueStats } from '../../../queues/queue-stats.ts';
import type { Scheduler } from '../../../queues/schedule-queue.ts';
import type { TurnQueue } from '../../../queues/turn-queue.ts';
import type { SwitchboardEnv } from '../../config/env-types.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import type { TurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { ResolvedActor } from '../actor/resolved-actor.ts';
import type { LoadedApp } from '../app/app-types.ts';
import type { ApprovalStore } from '../approvals/approval-types.ts';
import type { ArtifactStore } from '../artifacts/artifact-store.ts';
import type { ModelClient } from '../model/model-types.ts';
import type { BatchEventLog } from '../session/event-log.ts';
import type { SessionStore } from '../session/session-store.ts';
import type { ApprovalRuntime } from './approval-runtime.ts';
import type { WiredChannels } from './channel-wiring.ts';
import type { Metrics } from './metrics.ts';
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
}
