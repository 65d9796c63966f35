/**
 * Runs a channel's singleton listener under a Redis lease with a fencing token
 * (`channels/kit/lease`): one holder per account across every process, taken over by another
 * process within one lease lifetime when the holder dies.
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createLease } from '../channels/kit/lease/lease.ts';
import { runSingleton } from '../channels/kit/lease/run-singleton.ts';
import type { SingletonRunner } from './channel-wiring.ts';

/** Options of {@link createSingletonRunner}. */
export interface SingletonRunnerOptions {
  /** The command connection (not one used for blocking commands). */
  readonly redis: Redis;
  readonly prefix: string;
  readonly logger: Logger;
  /** How long a lease lives without renewal, in ms. Default 10000: a dead holder is replaced within about 10 s. */
  readonly leaseTtlMs?: number;
}

/** Creates the runner the channel wiring uses for listeners with a `singletonKey`. */
export function createSingletonRunner(options: SingletonRunnerOptions): SingletonRunner {
  const { logger } = options;
  return (key, listener) =>
    runSingleton({
      lease: createLease({
        redis: options.redis,
        key: `${options.prefix}:lease:${key}`,
        ownerId: `${hostname()}:${process.pid}`,
        ...(options.leaseTtlMs === undefined ? {} : { ttlMs: options.leaseTtlMs }),
      }),
      start: (fence) => listener.start(fence),
      onError: (error) => { logger.warn({ err: error, listener: key }, 'singleton listener'); },
      logger,
    });
}
