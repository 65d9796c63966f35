/**
 * The child side of a system under test (`system-process.ts` is the parent's): the child tells
 * the parent its URL once it serves, answers the parent's questions about its own CPU time, and
 * closes when asked or when the parent is gone. Everything goes over the IPC channel of
 * `child_process.fork`, so the child's stdout and stderr stay free.
 */

/** What the parent sends. */
export type ToChild = { readonly type: 'cpu'; readonly id: number } | { readonly type: 'stop' };

/** What the child sends. */
export type FromChild = { readonly type: 'ready'; readonly url: string } | { readonly type: 'cpu'; readonly id: number; readonly us: number };

/** The JSON config a child was started with (its first argument), for the child to read as its own type. */
export function childConfig(): unknown {
  return JSON.parse(process.argv[2] ?? '{}') as unknown;
}

function tell(message: FromChild): void {
  process.send?.(message);
}

/**
 * Says `ready` with `url`, then answers `cpu` (this process's user and system time, µs) and closes
 * with `close` on `stop` or when the IPC channel ends; exits when closed.
 */
export function serveParent(url: string, close: () => Promise<void>): void {
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('message', (message: ToChild) => {
    if (message.type === 'stop') stop();
    else {
      const usage = process.cpuUsage();
      tell({ type: 'cpu', id: message.id, us: usage.user + usage.system });
    }
  });
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  tell({ type: 'ready', url });
}
