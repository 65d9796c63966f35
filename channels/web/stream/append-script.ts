/**
 * The Lua script behind `WebEventStore.append`: dedupe, XADD and PUBLISH in one atomic step, so a
 * stored event is always announced, announcements come in stream order, and a retried append never
 * stores a second copy.
 *
 * The dedupe keeps a short list per conversation, newest first, of `<digest> <stream id>` for its
 * latest entries (a digest of each idempotency key): a retry comes soon after the first try, so a
 * window of recent entries is enough, and the list stays small (reading the stream's own entries
 * for it cost Redis three times the CPU: every entry carries its whole event).
 */

import { shortDigest } from '../../../src/runtime/crypto/signing.ts';
import { defineScript, runScript } from '../../../src/runtime/redis/redis-script.ts';
import type { Redis } from 'ioredis';

/*
 * KEYS[1] the conversation's stream, KEYS[2] its list of recent digests.
 * ARGV[1] the event JSON, ARGV[2] MAXLEN, ARGV[3] how many recent entries are remembered,
 * ARGV[4] the pub/sub channel, ARGV[5] the idempotency key's digest.
 * Returns { streamId, 1 } for a duplicate, { streamId, 0 } for a new entry. The published message
 * is "<previousStreamId> <streamId> <eventJson>", the previous id being "0" for a first entry: a
 * listener that did not see the previous entry knows it missed something.
 */
const APPEND_LUA = `
local recent = redis.call('LRANGE', KEYS[2], 0, ARGV[3] - 1)
for _, item in ipairs(recent) do
  local space = string.find(item, ' ', 1, true)
  if space and string.sub(item, 1, space - 1) == ARGV[5] then
    return { string.sub(item, space + 1), 1 }
  end
end
-- The newest entry of the list is the stream's last entry; a stream without a list (written
-- before the list existed) is asked.
local previous = '0'
local newest = recent[1] and string.find(recent[1], ' ', 1, true)
if newest then
  previous = string.sub(recent[1], newest + 1)
else
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if last[1] then
    previous = last[1][1]
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[5] .. ' ' .. id)
redis.call('LTRIM', KEYS[2], 0, ARGV[3] - 1)
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

/** A 16-character digest of an idempotency key (96 bits of SHA-256): what the recent list keeps. */
export function idempotencyDigest(key: string): string {
  return shortDigest(key, 16);
}

/** Runs the append script (EVALSHA, falling back to EVAL when the server does not have it cached). */
export async function runAppendScript(redis: Redis, input: AppendScriptInput): Promise<{ id: string; duplicate: boolean }> {
  const reply = await runScript(redis, APPEND_SCRIPT, [input.streamKey, input.recentKey], [input.eventJson, input.maxLen, input.window, input.channel, idempotencyDigest(input.idempotencyKey)]);
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error('Unexpected reply from the web append script.');
  return { id: reply[0], duplicate: reply[1] === 1 };
}
