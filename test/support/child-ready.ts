/**
 * Waiting for a child process that announces itself: it prints `ready` on stdout once it takes
 * work. Shared by the test worker processes and the bench's children.
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
