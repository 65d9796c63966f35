/**
 * Following a session's event log in Redis for the live timeline: `XREAD BLOCK` on the session's
 * stream (the exact key, never a pattern), on a connection of its own, since a blocked read holds
 * its connection.
 */
import type { Redis } from 'ioredis';
import { duplicateRedis } from '../../src/runtime/redis/redis-client.ts';
import { decodeRow, eventLogKey, type StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import type { LogFollower } from './inspector-sources.ts';

/** The entries of one stream entry, or one `unreadable` entry when its fields are not what the log writes. */
function decode(id: string, fields: readonly string[]): StoredEventLogEntry[] {
  try {
    return decodeRow(id, fields);
  } catch (error) {
    return [{ id, at: Number(id.split('-')[0]), type: 'unreadable' as StoredEventLogEntry['type'], data: { error: error instanceof Error ? error.message : String(error), fields } }];
  }
}

/**
 * Opens followers of the logs under `prefix`; each takes a duplicate of `redis` (same server or
 * cluster, same options), connected at its first read, that closing it disconnects.
 *
 * @example
 * const follow = redisLogFollowers(core.redis, core.prefix);
 * const follower = follow(sessionId);
 * const batches = await follower.readAfter('0', 5000, 100);
 * follower.close();
 */
export function redisLogFollowers(redis: Redis, prefix: string): (sessionId: string) => LogFollower {
  return (sessionId) => {
    // Connected before the first read: the service's client fails commands sent while not connected.
    const connection = duplicateRedis(redis, { lazyConnect: true });
    // A lost connection fails the read under way, which ends the stream; nothing else listens.
    connection.on('error', () => undefined);
    let connected: Promise<void> | undefined;
    const key = eventLogKey(prefix, sessionId);
    return {
      async readAfter(after, blockMs, count) {
        connected ??= connection.connect();
        await connected;
        const reply = await connection.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', key, after);
        const rows = reply?.[0]?.[1] ?? [];
        return rows.map(([id, fields]) => ({ streamId: id, entries: decode(id, fields) }));
      },
      close() {
        connection.disconnect();
      },
    };
  };
}
