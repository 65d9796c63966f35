/**
 * Writes made on a lease's behalf, checked against its fencing token in the same Lua script as
 * the write: refused with `lease.stale_fence` unless the token is the newest one issued for the
 * lease and the lease is held by that token right now. A holder that was paused past its TTL and
 * replaced cannot overwrite what its successor wrote, even before it notices the loss.
 */
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { defineScript, runScript, type RedisScript } from '../../../src/runtime/redis/redis-script.ts';
import { fenceCounterKey, type FenceRef } from './lease-keys.ts';

const STALE = 'STALE_FENCE';

/** Refuses the call unless ARGV[1] is the latest token and the lease holds it; shifts KEYS/ARGV. */
const FENCE_CHECK = `
local token = tonumber(ARGV[1])
local latest = tonumber(redis.call('GET', KEYS[2]) or '0')
local holder = redis.call('GET', KEYS[1])
local held = holder and tonumber(string.match(holder, '^(%d+):')) or 0
if token == nil or token < latest or held ~= token then
  return redis.error_reply('${STALE} ' .. string.format('%d', latest) .. ' ' .. string.format('%d', held))
end
local keys = {unpack(KEYS, 3)}
local args = {unpack(ARGV, 2)}
`;

/** A Lua script that runs only for the current holder of a lease; see {@link defineFencedScript}. */
export interface FencedScript {
  readonly script: RedisScript;
}

/**
 * Prepares a Lua script to run behind the fence check. In `body`, use the locals `keys` and `args`
 * (the `keys` and `args` given to {@link runFencedScript}) instead of `KEYS` and `ARGV`.
 *
 * @example
 * const ADVANCE = defineFencedScript(`
 *   if tonumber(redis.call('GET', keys[1]) or '0') < tonumber(args[1]) then redis.call('SET', keys[1], args[1]) end
 * `);
 * await runFencedScript(redis, ADVANCE, fence, [cursorKey], [uid]);
 */
export function defineFencedScript(body: string): FencedScript {
  return { script: defineScript(FENCE_CHECK + body) };
}

/**
 * Runs `fenced` with `keys` and `args` if `fence` is still the current holder of its lease.
 *
 * @returns The script's reply.
 * @throws {SwitchboardError} `lease.stale_fence` (not retryable) when the fence is stale; the
 *   script did not run.
 */
export async function runFencedScript(
  redis: Redis,
  fenced: FencedScript,
  fence: FenceRef,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const { leaseKey, token } = fence;
  try {
    return await runScript(redis, fenced.script, [leaseKey, fenceCounterKey(leaseKey), ...keys], [token, ...args]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith(STALE)) throw error;
    const [latestToken, holderToken] = error.message.slice(STALE.length).trim().split(' ').map(Number);
    throw new SwitchboardError('lease.stale_fence', `Write refused: token ${token} is not the current holder of lease ${leaseKey}`, {
      details: { leaseKey, token, latestToken, holderToken: holderToken === 0 ? null : holderToken, keys },
      retryable: false,
    });
  }
}

const SET = defineFencedScript(`
if args[2] == '' then return redis.call('SET', keys[1], args[1]) end
return redis.call('SET', keys[1], args[1], 'PX', args[2])
`);

const HSET = defineFencedScript(`return redis.call('HSET', keys[1], unpack(args))`);

/** Options of {@link fencedSet}. */
export interface FencedSetOptions extends FenceRef {
  /** The key to write. */
  readonly key: string;
  readonly value: string | number;
  /** Expiry of `key`, in milliseconds. Default: none (and any earlier expiry is cleared). */
  readonly ttlMs?: number;
}

/**
 * `SET key value [PX ttlMs]`, only for the current holder of the lease.
 *
 * @throws {SwitchboardError} `lease.stale_fence` when the token is stale; `key` is unchanged.
 *
 * @example
 * await fencedSet(redis, { ...fence, key: `sb:imap:${account}:last-uid`, value: uid });
 */
export async function fencedSet(redis: Redis, options: FencedSetOptions): Promise<void> {
  const ttl = options.ttlMs === undefined ? '' : Math.ceil(options.ttlMs);
  await runFencedScript(redis, SET, options, [options.key], [options.value, ttl]);
}

/** Options of {@link fencedHset}. */
export interface FencedHsetOptions extends FenceRef {
  /** The hash to write. */
  readonly key: string;
  /** Fields to set; at least one. Other fields of the hash are kept. */
  readonly fields: Readonly<Record<string, string | number>>;
}

/**
 * `HSET key field value ...`, only for the current holder of the lease.
 *
 * @throws {SwitchboardError} `lease.stale_fence` when the token is stale; `key` is unchanged.
 */
export async function fencedHset(redis: Redis, options: FencedHsetOptions): Promise<void> {
  const args = Object.entries(options.fields).flat();
  if (args.length === 0) throw new SwitchboardError('config.invalid', 'fencedHset needs at least one field', { details: { key: options.key } });
  await runFencedScript(redis, HSET, options, [options.key], args);
}
