/**
 * One socket write for the commands a Redis client sends in one turn of the event loop.
 *
 * ioredis writes every command to its socket as it is sent: one `write` system call each, and one
 * read for Redis at the other end. Many turns and requests run at once in a process: one turn of
 * the loop runs the callbacks of every socket that became readable (requests, Redis replies),
 * and each resumes a few of them, which send their next commands. Corking the socket at the
 * first write of a turn and uncorking it in the turn's check phase (`setImmediate`, which runs
 * once the loop has polled its sockets and run their callbacks and promise reactions) sends them
 * all in one `writev`. When the process is idle a turn has one callback, and the write leaves as
 * soon as it has run: no timer, no added wait.
 *
 * Unlike ioredis' `enableAutoPipelining`, there is no pipeline object and no waiting for the
 * previous batch's replies. Every command keeps its own reply, error and order. On loopback a
 * write costs the sender about 20-35 µs of system time on this machine. Counted with `strace` on
 * the Slack path at saturation: 2.5 Redis writes a message when the socket was uncorked at the end
 * of each tick (`process.nextTick`), 0.4 at the end of each loop turn.
 */
import type { Socket } from 'node:net';
import type { Cluster, Redis } from 'ioredis';

const coalesced = new WeakSet<Socket>();
const watched = new WeakSet<Redis | Cluster>();

/**
 * Makes `client` coalesce the writes of each turn of the event loop, on its current socket and on every socket it
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
    corkEachLoopTurn((client as unknown as { stream?: Socket }).stream);
  };
  client.on('connect', onConnect);
  onConnect();
  return client;
}

function isCluster(client: Redis | Cluster): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
}

/** Wraps `stream.write` so the first write of a loop turn corks the socket until the turn's check phase. */
function corkEachLoopTurn(stream: Socket | undefined): void {
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
      setImmediate(uncork);
    }
    return write(...args);
  };
  stream.write = coalescing;
}
