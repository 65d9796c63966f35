/**
 * The Lua script behind `WebEventStore.append`: dedupe, XADD and PUBLISH in one atomic step, so a
 * stored event is always announced, announcements come in stream order, and a retried append never
 * stores a second copy.
 *
 * The dedupe keeps a short list per conversation, newest first, of its latest entries as pairs of
 * elements: `#<digest>` (a digest of the idempotency key), then the entry's stream id. A retry
 * comes soon after the first try, so a window of recent entries is enough. Redis itself finds a
 * digest in the list (`LPOS`), and the newest pair names the stream's last entry: the script never
 * walks the list in Lua. (Walking 32 entries in Lua, as the list's earlier form needed, cost Redis
 * about 10 µs an append, more than every command of the append together; reading the stream's own
 * entries for the dedupe cost three times that.)
 */

import { shortDigest } from '../../../src/runtime/crypto/signing.ts';
import { defineScript, runScript } from '../../../src/runtime/redis/redis-script.ts';
import type { Redis } from 'ioredis';

/*
 * KEYS[1] the conversation's stream, KEYS[2] its list of recent digests and ids.
 * ARGV[1] the event JSON, ARGV[2] MAXLEN, ARGV[3] how many recent entries are remembered,
 * ARGV[4] the pub/sub channel, ARGV[5] the idempotency key's digest, marked (`#<digest>`).
 * Returns { streamId, 1 } for a duplicate, { streamId, 0 } for a new entry. The published message
 * is "<previousStreamId> <streamId> <eventJson>", the previous id being "0" for a first entry: a
 * listener that did not see the previous entry knows it missed something.
 *
 * A list of the earlier form (one "<digest> <id>" element per entry, written by versions before
 * this one) is searched once the old way, then replaced by the new form.
 */
const APPEND_LUA = `
local kept = ARGV[3] * 2
local at = redis.call('LPOS', KEYS[2], ARGV[5], 'MAXLEN', kept)
if at then return { redis.call('LINDEX', KEYS[2], at + 1), 1 } end
local head = redis.call('LRANGE', KEYS[2], 0, 1)
local previous = head[2]
if head[1] and string.find(head[1], ' ', 1, true) then
  local digest = string.sub(ARGV[5], 2)
  local older = redis.call('LRANGE', KEYS[2], 0, ARGV[3] - 1)
  for _, item in ipairs(older) do
    local space = string.find(item, ' ', 1, true)
    if space and string.sub(item, 1, space - 1) == digest then return { string.sub(item, space + 1), 1 } end
  end
  redis.call('DEL', KEYS[2])
  previous = nil
end
if not previous then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  previous = last[1] and last[1][1] or '0'
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[1])
redis.call('LPUSH', KEYS[2], id, ARGV[5])
redis.call('LTRIM', KEYS[2], 0, kept - 1)
redis.call('PUBLISH', ARGV[4], previous .. ' ' .. id .. ' ' .. ARGV[1])
return { id, 0 }
`;

const APPEND_SCRIPT = defineScript(APPEND_LUA);

/** What the script needs for one append. */
export interface AppendScriptInput {
  readonly streamKey: string;
  /** The conversation's list of recent digests. */
  readonly recentKey: string;
  readonly channel: string;
  readonly eventJson: string;
  readonly idempotencyKey: string;
  readonly maxLen: number;
  /** How many of the latest entries are remembered for the dedupe. */
  readonly window: number;
}

/**
 * A 16-character digest of an idempotency key (96 bits of SHA-256), marked with a leading `#`
 * (never in a stream id nor in base64url): what the recent list keeps.
 */
export function idempotencyDigest(key: string): string {
  return `#${shortDigest(key, 16)}`;
}

/** Runs the append script (EVALSHA, falling back to EVAL when the server does not have it cached). */
export async function runAppendScript(redis: Redis, input: AppendScriptInput): Promise<{ id: string; duplicate: boolean }> {
  const reply = await runScript(redis, APPEND_SCRIPT, [input.streamKey, input.recentKey], [input.eventJson, input.maxLen, input.window, input.channel, idempotencyDigest(input.idempotencyKey)]);
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error('Unexpected reply from the web append script.');
  return { id: reply[0], duplicate: reply[1] === 1 };
}
