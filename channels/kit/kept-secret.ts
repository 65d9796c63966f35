/**
 * Secrets the service makes for itself and shares between its processes through Redis: the web
 * session key (unless `SESSION_SECRET` is set), the key of the email channel's Message-IDs, the key
 * of signed artifact links. Made by whichever process asks first (`SET NX`, then read back, so
 * concurrent starts agree). Never logged.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../src/protocol/errors.ts';

/** Options of {@link keptSecret}. */
export interface KeptSecretOptions {
  readonly redis: Redis;
  /** Key prefix of the service (`sb`). */
  readonly prefix: string;
  /** What the secret is for, part of its key: `<prefix>:<purpose>:secret`, e.g. `web:secret:session`. */
  readonly purpose: string;
  /** A configured secret (already validated), used as it is and never stored; `undefined` for a kept one. */
  readonly configured?: string | undefined;
}

/** Bytes of a generated secret: 256 bits, 43 characters of base64url. */
const GENERATED_SECRET_BYTES = 32;

/** The Redis key of the kept secret for `purpose`. */
export function keptSecretKey(prefix: string, purpose: string): string {
  return `${prefix}:${purpose}`;
}

/**
 * The configured secret, else the one kept in Redis under {@link keptSecretKey}, made on first use.
 *
 * @throws SwitchboardError `channel.unavailable` when the kept secret cannot be read back; Redis's
 *   own error when it cannot be reached.
 * @example
 * const secret = await keptSecret({ redis, prefix, purpose: 'web:secret:session', configured: env.sessionSecret });
 */
export async function keptSecret(options: KeptSecretOptions): Promise<string> {
  if (options.configured !== undefined) return options.configured;
  const key = keptSecretKey(options.prefix, options.purpose);
  await options.redis.set(key, randomBytes(GENERATED_SECRET_BYTES).toString('base64url'), 'NX');
  const kept = await options.redis.get(key);
  if (kept === null || kept.length === 0) {
    throw new SwitchboardError('channel.unavailable', `A kept secret could not be read back from Redis (${key}).`, { retryable: true });
  }
  return kept;
}
