/**
 * The address file of a private `redis-server`: written into its data folder once the server
 * answers `PING`, removed when it stops. Other processes started from the same folder (the CLI
 * beside `npm start`) read it to reach that server instead of starting a second one on the same
 * data.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pingRedis } from './ping-redis.ts';
import { isAlive } from './pid-file.ts';

/** Where a running private server is reached. */
export interface EmbeddedRedisAddress {
  /** `redis://<host>:<port>`, no password. */
  readonly url: string;
  /** Loopback host the server is bound to. */
  readonly host: string;
  /** TCP port. */
  readonly port: number;
  /** Process id of the `redis-server`. */
  readonly pid: number;
}

/** Path of the address file in a private server's data folder. */
export function addressFileOf(dataDir: string): string {
  return join(dataDir, 'redis-address.json');
}

/**
 * Records where the server of `dataDir` listens. Written to a temporary file and renamed, so a
 * reader sees the whole file or none.
 */
export async function writeAddressFile(dataDir: string, address: Omit<EmbeddedRedisAddress, 'url'>): Promise<void> {
  const file = addressFileOf(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ host: address.host, port: address.port, pid: address.pid })}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** Removes the address file of `dataDir`, if any. Synchronous, so that it also runs in an `exit` handler. */
export function removeAddressFile(dataDir: string): void {
  rmSync(addressFileOf(dataDir), { force: true });
}

/**
 * The private server that a running service keeps in `dataDir`, or `undefined` when none is
 * there: no address file, an unreadable one, or a stale one (its process gone, or its port not
 * answering `PING` within `timeoutMs`, default 1000).
 *
 * @example
 * const running = await findRunningEmbeddedRedis('.data/redis');
 * if (running !== undefined) connectTo(running.url);
 */
export async function findRunningEmbeddedRedis(dataDir: string, timeoutMs = 1_000): Promise<EmbeddedRedisAddress | undefined> {
  const text = await readFile(addressFileOf(dataDir), 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return undefined;
  const address = parseAddress(text);
  if (address === undefined || !isAlive(address.pid)) return undefined;
  return (await pingRedis(address.port, address.host, timeoutMs)) ? address : undefined;
}

function parseAddress(text: string): EmbeddedRedisAddress | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { host, port, pid } = value as Record<string, unknown>;
  if (typeof host !== 'string' || !Number.isInteger(port) || !Number.isInteger(pid)) return undefined;
  const [portNumber, pidNumber] = [port as number, pid as number];
  if (portNumber <= 0 || portNumber > 65_535 || pidNumber <= 0) return undefined;
  return { url: `redis://${host}:${portNumber}`, host, port: portNumber, pid: pidNumber };
}
