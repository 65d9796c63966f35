/**
 * The options and handle of a switchboard process, shared by the composition root and its role
 * modules.
 */
import type { Logger } from 'pino';
import type { ChannelModule } from '../channels/channel.ts';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import type { HttpServerLimits } from '../src/runtime/http/http-server.ts';
import type { ModelClient } from '../src/runtime/model/model-types.ts';
import type { SenderStoreOptions } from '../src/runtime/senders/sender-store.ts';
import type { EventLogArchive } from '../src/runtime/session/event-log.ts';

/** Which parts of switchboard a process runs. */
export type ServiceRole = 'all' | 'web' | 'worker';

/** Options of `startService`. */
export interface ServiceOptions {
  readonly env: SwitchboardEnv;
  readonly role: ServiceRole;
  /**
   * The Redis to use (the embedded one's URL when `REDIS_URL` is unset). Several comma-separated
   * URLs name the seed nodes of a Redis Cluster; the prefix then gets a hash tag (`{sb}`).
   */
  readonly redisUrl: string;
  readonly logger: Logger;
  /** Overrides the model client (tests, the benchmark). Default: the Anthropic SDK from the environment. */
  readonly model?: ModelClient;
  /**
   * Key and queue prefix in Redis. Default `sb`. On a cluster it is wrapped in a hash tag (`{sb}`)
   * unless it already holds one (see `deploymentPrefix`).
   */
  readonly prefix?: string;
  /** Port to listen on; default `env.port`. 0 picks a free one. */
  readonly port?: number;
  /**
   * Bounds on slow HTTP clients (web roles): headers within 10 s, the whole request within 30 s,
   * kept-alive connections idle 5 s at most. See `src/runtime/http/http-server.ts`.
   */
  readonly http?: HttpServerLimits;
  /** Turns run at once by this process. Default the environment's `SWITCHBOARD_TURN_CONCURRENCY` (128). */
  readonly turnConcurrency?: number;
  /**
   * How long a session lock lives without a heartbeat, in ms: a dead worker's sessions are free
   * this long after it died at most. Renewed every fifth of it, all of a worker's locks in one
   * command (2 a second per busy worker at the default). Default 2500; see `createTurnWorker`.
   */
  readonly sessionLockTtlMs?: number;
  /**
   * How long a worker's hold on a turn job lives without renewal, in ms (crash detection): renewed
   * every eighth of it, all of a worker's jobs in one command; the stalled-job check runs every
   * 0.5 s whatever this is. Default 2500; see `createTurnWorker`.
   */
  readonly jobLockDurationMs?: number;
  /** Overrides every tool's approval expiry, in ms (tests, demos). Default: per tool from switchboard.yaml. */
  readonly approvalTtlMs?: number;
  /**
   * Overrides of the sender store's limits (pairing code lifetime, codes per sender a day, held
   * messages, wrong codes per approver), for tests and demos. Default: those of `sender-store.ts`.
   */
  readonly senderStore?: Omit<SenderStoreOptions, 'redis' | 'prefix'>;
  /** How long a `delegated` turn waits for its peer, in ms. Default 10 minutes. */
  readonly delegationTimeoutMs?: number;
  /** The tenant of every conversation. Default `default`. */
  readonly tenantId?: string;
  /** The channels this process knows. Default every channel in `channels/registry.ts`. */
  readonly channels?: readonly ChannelModule[];
  /**
   * How long a turn runs before its live signals (`ack`, `thinking`, `progress`) show on a
   * provider's streaming channel (the Slack thread status), in milliseconds: a quicker turn sends
   * only its answer. Default 1000.
   */
  readonly signalDelayMs?: number;
  /**
   * Receives every event-log entry written (Redis keeps only the recent log of each session):
   * where users who need the whole history keep it. Its failures are logged, never fail a turn.
   * Default none.
   */
  readonly eventLogArchive?: EventLogArchive;
}

/** A running switchboard process. */
export interface Service {
  /** The HTTP base URL, when this role serves HTTP. */
  readonly url: string | undefined;
  /** Stops taking work, finishes what runs, closes every connection it opened. */
  close(): Promise<void>;
}

