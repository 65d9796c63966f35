import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchboardError } from '../../protocol/errors.ts';

/** Path of the pid file a private server writes in its data folder. */
export function pidFileOf(dataDir: string): string {
  return join(dataDir, 'redis.pid');
}

/**
 * Refuses a data folder that a live process still claims through its pid file: two servers
 * appending to the same files would corrupt them. A pid file left by a crash (its process gone)
 * is ignored; Redis overwrites it.
 *
 * @throws {SwitchboardError} `config.invalid` naming the pid and the file to remove if that
 *   process is not Redis.
 */
export async function assertDataDirFree(dataDir: string): Promise<void> {
  const file = pidFileOf(dataDir);
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  const pid = text === undefined ? Number.NaN : Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isAlive(pid)) return;
  throw new SwitchboardError(
    'config.invalid',
    `Another redis-server (pid ${pid}) is already using ${dataDir}. Stop it, point this one at another data folder, ` +
      `or, if pid ${pid} is not a Redis server, delete ${file}.`,
    { details: { dataDir, pid, pidFile: file } },
  );
}

/** Whether a process with this pid exists (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
