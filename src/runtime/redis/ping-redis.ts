import { connect } from 'node:net';

/**
 * Sends one inline `PING` to a Redis server and reports whether it answered `+PONG`. Any other
 * answer (`-LOADING` while it reads its data, a refused connection, a timeout) is `false`.
 * Uses a bare socket so that it needs no Redis client.
 *
 * @param port - TCP port on `host`.
 * @param host - Default `127.0.0.1`.
 * @param timeoutMs - Give up after this many milliseconds. Default 1000.
 */
export function pingRedis(port: number, host = '127.0.0.1', timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => {
      finish(false);
    });
    socket.once('error', () => {
      finish(false);
    });
    socket.once('connect', () => {
      socket.write('PING\r\n');
    });
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
    socket.once('close', () => {
      finish(false);
    });
  });
}
