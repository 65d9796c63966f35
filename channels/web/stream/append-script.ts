/**
 * The Lua script behind `WebEventStore.append`: dedupe, XADD and PUBLISH in one atomic step, so a
 * stored event is always announced, announcements come in stream order, and a retried append never
 * stores a second copy.
 */

import { defineScript, runScript } from '../../../src/runtime/redis/redis-script.ts';
import type { Redis } from 'ioredis';

/*
 * KEYS[1] the conversation's stream, KEYS[2] the idempotency key's marker.
 * ARGV[1] the event JSON, ARGV[2] MAXLEN, ARGV[3] marker TTL in ms, ARGV[4] the pub/sub channel.
 * Returns { streamId, 1 } for a duplicate, { streamId, 0 } for a new entry. The published message
 * is "<previousStreamId> <streamId> <eventJson>", the previous id being "0" for a first entry: a
 * listener that did not see the previous entry knows it missed something.
 */
const APPEND_LUA = `
local existing = redis.call('GET', KEYS[2])
if existing then
  return { existing, 1 }
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local previous = '0'
if last[1] then
  previous = last[1][1]
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[1])
redis.call('SET', KEYS[2], id, 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], previous .. ' ' .. id .. ' ' .. ARGV[1])
return { id, 0 }
`;

const APPEND_SCRIPT = defineScript(APPEND_LUA);

/** What the script needs for one append. */
export interface AppendScriptInput {
  readonly streamKey: string;
  readonly markerKey: string;
  readonly channel: string;
  readonly eventJson: string;
  readonly maxLen: number;
  readonly markerTtlMs: number;
}

/** Runs the append script (EVALSHA, falling back to EVAL when the server does not have it cached). */
export async function runAppendScript(redis: Redis, input: AppendScriptInput): Promise<{ id: string; duplicate: boolean }> {
  const reply = await runScript(redis, APPEND_SCRIPT, [input.streamKey, input.markerKey], [input.eventJson, input.maxLen, input.markerTtlMs, input.channel]);
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error('Unexpected reply from the web append script.');
  return { id: reply[0], duplicate: reply[1] === 1 };
}
