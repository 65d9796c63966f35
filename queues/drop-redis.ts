/**
 * Dropping a Redis client that has lost Redis, so that nothing waiting on it waits for ever.
 *
 * ioredis holds two kinds of commands for a connection that is away: those sent after the loss
 * (its offline queue), and those that were in flight when the connection closed, kept aside to be
 * sent again once a connection is ready. A client that ends fails the first kind. It fails the
 * second kind only while they are still in its current command list, and a connection attempt that
 * gets as far as TCP (a Redis that accepts, then dies) starts a fresh list: the commands kept aside
 * are then never settled (ioredis 6.0.0; reported upstream as redis/ioredis#2197). A BullMQ worker
 * closing gracefully waits on such a command (a running job's end) and would never stop.
 */
import type { Redis } from 'ioredis';
import { isCluster } from '../src/runtime/redis/redis-client.ts';

/** The message ioredis fails a command with when its client has ended. */
const CLOSED_MESSAGE = 'Connection is closed.';

/** The part of an ioredis client's internals that holds the commands kept aside. */
interface KeptAside {
  prevCommandQueue?: { shift(): { command: { reject(error: Error): void } } | undefined } | null;
}

/** Fails the commands that `client` kept aside to send again; for a client that has just ended. */
function failKeptAside(client: Redis): void {
  const kept = (client as unknown as KeptAside).prevCommandQueue;
  if (kept === null || kept === undefined) return;
  for (let item = kept.shift(); item !== undefined; item = kept.shift()) {
    item.command.reject(new Error(CLOSED_MESSAGE));
  }
}

/**
 * Drops a client that is not connected, failing every command it holds: those queued while it was
 * away, and those in flight when it lost Redis. ioredis fails queued commands only when a
 * connection closes, and a bare `disconnect()` while the client waits to reconnect cancels the
 * next attempt without closing anything: they would wait for ever. So a waiting client makes one
 * more attempt after it, which Redis (still away) refuses or cuts; the connection closes and,
 * asked to disconnect, the client ends. Should Redis be back, the attempt connects, the held
 * commands are sent, and the client ends at its next close. A cluster client is only disconnected.
 */
export function dropRedis(client: Redis): void {
  client.once('end', () => { failKeptAside(client); });
  client.disconnect();
  if (client.status === 'reconnecting' && !isCluster(client)) client.connect().catch(() => undefined);
}
