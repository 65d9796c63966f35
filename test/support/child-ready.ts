/**
 * Child processes that announce themselves: the child prints `ready` on stdout once it takes work
 * and stops on SIGTERM or when its stdin ends; the parent waits for the line. Shared by the test
 * worker processes, the bench's children and the chaos run's services.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves when `child` prints `ready`; rejects when it exits first or after `timeoutMs`
 * (default 30000), with `output()` (what it wrote on stderr) in the message.
 */
export function untilReady(child: ChildProcess, label: string, output: () => string, timeoutMs = 30_000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`${label} did not start in ${String(timeoutMs / 1000)} s: ${output()}`)); }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${String(code)}: ${output()}`));
    });
  });
}

/**
 * In a child: prints `ready <pid>`, then runs `close` once on SIGTERM or when stdin ends (the
 * parent is gone), and exits.
 */
export function serveUntilStopped(close: () => Promise<void>): void {
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
  process.once('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.stdout.write(`ready ${process.pid}\n`);
}
