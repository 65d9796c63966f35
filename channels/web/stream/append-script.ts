/**
 * The Lua script behind `WebEventStore.append`: dedupe, XADD and PUBLISH in one atomic step, so a
 * stored event is always announced, announcements come in stream order, and a retried append never
 * stores a second copy.
 *
 * The dedupe needs no key of its own: each entry carries a digest of its idempotency key, and an
 * append first reads the conversation's latest entries (which it reads anyway for the previous id)
 * and answers the earlier entry when one carries the same digest. A retry comes soon after the
 * first try, so a window of recent entries is enough, and an idle conversation keeps nothing but
 * its stream.
 */

import { createHash } from 'node:crypto';
import { defineScript, runScript } from '../../../src/runtime/redis/redis-script.ts';
import type { Redis } from 'ioredis';

/*
 * KEYS[1] the conversation's stream.
 * ARGV[1] the event JSON, ARGV[2] MAXLEN, ARGV[3] how many recent entries are searched for the
 * digest, ARGV[4] the pub/sub channel, ARGV[5] the idempotency key's digest.
 * Returns { streamId, 1 } for a duplicate, { streamId, 0 } for a new entry. The published message
 * is "<previousStreamId> <streamId> <eventJson>", the previous id being "0" for a first entry: a
 * listener that did not see the previous entry knows it missed something.
 */
const APPEND_LUA = `
local recent = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ARGV[3])
for _, entry in ipairs(recent) do
  local fields = entry[2]
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'key' and fields[i + 1] == ARGV[5] then
      return { entry[1], 1 }
    end
  end
end
local previous = '0'
if recent[1] then
  previous = recent[1][1]
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[1], 'key', ARGV[5])
redis.call('PUBLISH', ARGV[4], previous .. ' ' .. id .. ' ' .. ARGV[1])
return { id, 0 }
`;

const APPEND_SCRIPT = defineScript(APPEND_LUA);

/** What the script needs for one append. */
export interface AppendScriptInput {
  readonly streamKey: string;
  readonly channel: string;
  readonly eventJson: string;
  readonly idempotencyKey: string;
  readonly maxLen: number;
  /** How many of the latest entries are searched for an earlier copy. */
  readonly window: number;
}

/** A 16-character digest of an idempotency key (96 bits of SHA-256): what the entry carries. */
export function idempotencyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

/** Runs the append script (EVALSHA, falling back to EVAL when the server does not have it cached). */
export async function runAppendScript(redis: Redis, input: AppendScriptInput): Promise<{ id: string; duplicate: boolean }> {
  const reply = await runScript(redis, APPEND_SCRIPT, [input.streamKey], [input.eventJson, input.maxLen, input.window, input.channel, idempotencyDigest(input.idempotencyKey)]);
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error('Unexpected reply from the web append script.');
  return { id: reply[0], duplicate: reply[1] === 1 };
}
