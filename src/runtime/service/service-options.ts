/**
 * The options and handle of a switchboard process, shared by the composition root and its role
 * modules.
 */
import type { Logger } from 'pino';
import type { ChannelModule } from '../../../channels/channel.ts';
import type { SwitchboardEnv } from '../../config/env-types.ts';
import type { ModelClient } from '../model/model-types.ts';

/** Which parts of switchboard a process runs. */
export type ServiceRole = 'all' | 'web' | 'worker';

/** Options of `startService`. */
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

/** ioredis/BullMQ connection options from a `redis://` or `rediss://` URL. */
export function redisOptions(url: string): { host: string; port: number; password?: string; username?: string; db?: number; tls?: object } {
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
