/**
 * One socket write for the commands a Redis client sends in one tick.
 *
 * ioredis writes every command to its socket as it is sent: one `write` system call each, and one
 * read for Redis at the other end. Many turns and requests run at once in a process, and the
 * replies of one socket read resume several of them, which then send their next commands in the
 * same tick. Corking the socket at the first write of a tick and uncorking it when the tick's
 * callbacks and promise reactions have run (`process.nextTick` scheduled from them runs after the
 * microtask queue drains) sends them all in one `writev`.
 *
 * Unlike ioredis' `enableAutoPipelining`, nothing waits: there is no pipeline object, no
 * `setImmediate` before the write and no waiting for the previous batch's replies. Every command
 * keeps its own reply, error and order. The bench measured, per message, about a third of the
 * process's write system calls and about 20% less CPU in the process and in Redis.
 */
import type { Socket } from 'node:net';
import type { Cluster, Redis } from 'ioredis';

const coalesced = new WeakSet<Socket>();
const watched = new WeakSet<Redis | Cluster>();

/**
 * Makes `client` coalesce the writes of each tick, on its current socket and on every socket it
 * opens later (reconnects). For a cluster, on the connection to every node, present and future.
 * Call it once, right after the client is made; calling it again does nothing more.
 */
export function coalesceWrites<Client extends Redis | Cluster>(client: Client): Client {
  if (watched.has(client)) return client;
  watched.add(client);
  if (isCluster(client)) {
    client.on('+node', (node: Redis) => coalesceWrites(node));
    for (const node of client.nodes('all')) coalesceWrites(node);
    return client;
  }
  const onConnect = (): void => {
    corkEachTick((client as unknown as { stream?: Socket }).stream);
  };
  client.on('connect', onConnect);
  onConnect();
  return client;
}

function isCluster(client: Redis | Cluster): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
}

/** Wraps `stream.write` so the first write of a tick corks the socket until the tick ends. */
function corkEachTick(stream: Socket | undefined): void {
  if (stream === undefined || coalesced.has(stream)) return;
  coalesced.add(stream);
  let corked = false;
  const uncork = (): void => {
    corked = false;
    stream.uncork();
  };
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  const coalescing = (...args: unknown[]): boolean => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(uncork);
    }
    return write(...args);
  };
  stream.write = coalescing;
}
