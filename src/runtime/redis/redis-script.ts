/**
 * Lua scripts run by SHA-1 (`EVALSHA`), falling back to `EVAL` when the server has not cached the
 * script yet (after a restart or a `SCRIPT FLUSH`). Nothing is registered on the client, so a client
 * passed in by the caller is left as it was.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script and its SHA-1. */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

/** Prepares a Lua script for {@link runScript}. */
export function defineScript(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source, 'utf8').digest('hex') };
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * Runs `script` with `keys` and `args`; resolves to the raw reply. Not an async function: scripts
 * run several times a message, and the fallback is the rare path.
 */
export function runScript(
  redis: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return redis.evalsha(script.sha1, keys.length, ...keys, ...args).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  });
}
