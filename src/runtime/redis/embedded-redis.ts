import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SwitchboardError } from '../../protocol/errors.ts';
import { findFreePort } from './free-port.ts';
import { OutputTail } from './output-tail.ts';
import { removeAddressFile, writeAddressFile } from './embedded-redis-address.ts';
import { assertDataDirFree, pidFileOf } from './pid-file.ts';
import { pingRedis } from './ping-redis.ts';

/** Where the private server listens. Loopback only: it has no password. */
const HOST = '127.0.0.1';

/** How many times a start is tried again on a fresh port after `EADDRINUSE`. */
const PORT_RETRIES = 3;

/** Pause between two readiness checks, in milliseconds. */
const POLL_INTERVAL_MS = 50;

/** What happened when the server process ended. */
export interface RedisExit {
  /** Exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: NodeJS.Signals | null;
}

/** The log methods used by {@link startEmbeddedRedis}; a pino logger fits. */
export interface EmbeddedRedisLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Options of {@link startEmbeddedRedis}. */
export interface EmbeddedRedisOptions {
  /**
   * Folder for the server's data (append-only file, pid file, and `redis-address.json` while it
   * runs: see `findRunningEmbeddedRedis`). Created when missing.
   */
  readonly dataDir: string;
  /** Path or name of the server binary. Default `redis-server`, looked up on `PATH`. */
  readonly binary?: string;
  /**
   * TCP port on 127.0.0.1. Default: a free port chosen by the OS (retried up to 3 times when
   * another process takes it first). A port given here is not retried.
   */
  readonly port?: number;
  /** Where start, stop and the server's own output lines (debug level) are logged. Default: none. */
  readonly logger?: EmbeddedRedisLogger;
  /** How long to wait for the first `PONG`, in milliseconds. Default 10000. */
  readonly startTimeoutMs?: number;
  /** How long {@link EmbeddedRedis.stop} waits after SIGTERM before SIGKILL, in milliseconds. Default 10000. */
  readonly stopTimeoutMs?: number;
  /**
   * When the append-only file is synced to disk: `everysec` (Redis' default: a crash of the
   * machine can lose the last second of acknowledged writes; a SIGKILL of Redis alone cannot, as
   * each write reached the operating system before its answer) or `always` (every write is on disk
   * before it is acknowledged; slower). Default `everysec`.
   */
  readonly appendFsync?: 'everysec' | 'always';
  /** Chooses the port when {@link EmbeddedRedisOptions.port} is unset. Default: {@link findFreePort}. For tests. */
  readonly choosePort?: () => Promise<number>;
}

/** A running private `redis-server`. The caller that started it stops it. */
export interface EmbeddedRedis {
  /** `redis://127.0.0.1:<port>`, no password. */
  readonly url: string;
  /** TCP port on 127.0.0.1. */
  readonly port: number;
  /** Settles when the server process ends, for whatever reason; never rejects. */
  readonly exited: Promise<RedisExit>;
  /**
   * Shuts the server down (SIGTERM: Redis flushes its append-only file and exits) and waits for the
   * process to end; SIGKILL after `stopTimeoutMs`. Safe to call more than once.
   */
  stop(): Promise<void>;
  /** Ends the server at once with SIGKILL, as a crash would (no final write), and waits for it to end. */
  kill(): Promise<void>;
}

/**
 * Starts a private `redis-server` bound to 127.0.0.1, keeping its data in `dataDir` with the
 * append-only file on and `maxmemory-policy noeviction` (queues must never lose keys), and waits
 * until it answers `PING`. The server is killed if this process exits without stopping it.
 *
 * Once it answers, its address is recorded in `<dataDir>/redis-address.json`, which is removed
 * when the server stops, is killed or exits: the CLI started from the same folder finds it there
 * with `findRunningEmbeddedRedis` rather than starting a second server on the same data.
 *
 * @throws {SwitchboardError} `config.invalid` when the binary is missing or not executable, the
 *   given port is taken, or another server already uses `dataDir`; `internal` when the server
 *   exits or does not answer within `startTimeoutMs` (the message quotes its last output lines).
 *
 * @example
 * const redis = await startEmbeddedRedis({ dataDir: '.data/redis' });
 * try { await work(redis.url); } finally { await redis.stop(); }
 */
export async function startEmbeddedRedis(options: EmbeddedRedisOptions): Promise<EmbeddedRedis> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  await assertDataDirFree(dataDir);
  const choosePort = options.choosePort ?? (() => findFreePort(HOST));
  for (let attempt = 0; ; attempt += 1) {
    const port = options.port ?? (await choosePort());
    const outcome = await launch({ ...options, dataDir, port });
    if (outcome.kind === 'started') return outcome.redis;
    if (options.port !== undefined) {
      throw new SwitchboardError(
        'config.invalid',
        `Cannot start redis-server: port ${port} on ${HOST} is already in use. ` +
          'Choose another port, or set REDIS_URL to use a running Redis.',
        { details: { port, output: outcome.output } },
      );
    }
    if (attempt >= PORT_RETRIES) {
      throw new SwitchboardError('internal', `Cannot start redis-server: no free port after ${PORT_RETRIES + 1} tries.`, {
        details: { output: outcome.output },
        retryable: true,
      });
    }
    options.logger?.debug({ port }, 'embedded redis: port taken, trying another');
  }
}

type LaunchOutcome = { kind: 'started'; redis: EmbeddedRedis } | { kind: 'port-in-use'; output: string[] };

interface LaunchOptions extends EmbeddedRedisOptions {
  readonly dataDir: string;
  readonly port: number;
}

/** Starts one server process on one port and waits until it is ready, exits or times out. */
async function launch(options: LaunchOptions): Promise<LaunchOutcome> {
  const { dataDir, port, logger } = options;
  const binary = options.binary ?? 'redis-server';
  const child = spawn(binary, serverArgs(dataDir, port, options.appendFsync ?? 'everysec'), { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = new OutputTail();
  const onOutput = (chunk: Buffer): void => {
    for (const line of tail.push(chunk.toString('utf8'))) logger?.debug({ port }, `redis-server: ${line}`);
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  let exit: RedisExit | undefined;
  const exited = new Promise<RedisExit>((done) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      done(exit);
    });
  });
  await spawned(child, binary);
  // Later errors (a failed kill) must not crash the process as unhandled 'error' events.
  child.on('error', (error) => {
    logger?.warn({ port, err: error }, 'embedded redis: process error');
  });
  const killOnParentExit = (): void => {
    removeAddressFile(dataDir);
    child.kill('SIGKILL');
  };
  process.on('exit', killOnParentExit);

  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  // A ping to a port some other process holds may hang: stop waiting as soon as the child exits.
  const ready = (): Promise<boolean> => Promise.race([pingRedis(port, HOST), exited.then(() => false)]);
  while (!(await ready())) {
    if (exit !== undefined) {
      process.off('exit', killOnParentExit);
      if (tail.includes('Address already in use')) return { kind: 'port-in-use', output: tail.lines() };
      throw startFailure(`redis-server exited (${describeExit(exit)}) before answering PING`, tail, binary);
    }
    if (Date.now() >= deadline) {
      child.kill('SIGKILL');
      await exited;
      process.off('exit', killOnParentExit);
      throw startFailure(`redis-server did not answer PING within ${timeoutMs} ms`, tail, binary);
    }
    await sleep(POLL_INTERVAL_MS);
  }
  try {
    await writeAddressFile(dataDir, { host: HOST, port, pid: child.pid ?? 0 });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    process.off('exit', killOnParentExit);
    throw new SwitchboardError('internal', `Cannot record the address of redis-server in ${dataDir}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  logger?.info({ port, dataDir }, 'embedded redis started');

  let stopping: Promise<void> | undefined;
  void exited.then((info) => {
    process.off('exit', killOnParentExit);
    removeAddressFile(dataDir);
    if (stopping === undefined) logger?.warn({ port, ...info, output: tail.lines() }, 'embedded redis exited unexpectedly');
  });
  const stop = (): Promise<void> => {
    // Withdrawn first: a CLI command looking now must not pick a server that is shutting down.
    removeAddressFile(dataDir);
    stopping ??= stopProcess(child, exited, exit !== undefined, options.stopTimeoutMs ?? 10_000).then(() => {
      logger?.info({ port }, 'embedded redis stopped');
    });
    return stopping;
  };
  const kill = async (): Promise<void> => {
    removeAddressFile(dataDir);
    stopping ??= exited.then(() => {
      logger?.info({ port }, 'embedded redis killed');
    });
    if (exit === undefined) child.kill('SIGKILL');
    await stopping;
  };
  return { kind: 'started', redis: { url: `redis://${HOST}:${port}`, port, exited, stop, kill } };
}

/** The server's command line: every setting given as an argument, no config file. */
function serverArgs(dataDir: string, port: number, appendFsync: 'everysec' | 'always'): string[] {
  return [
    '--port', String(port),
    '--bind', HOST,
    '--dir', dataDir,
    '--pidfile', pidFileOf(dataDir),
    '--daemonize', 'no',
    '--appendonly', 'yes',
    '--appendfsync', appendFsync,
    '--maxmemory-policy', 'noeviction',
    '--save', '',
  ];
}

/** Waits until the process has started; converts a missing or unusable binary into a clear error. */
function spawned(child: ChildProcess, binary: string): Promise<void> {
  return new Promise((done, fail) => {
    child.once('spawn', () => {
      done();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') fail(missingBinary(binary, error));
      else fail(new SwitchboardError('internal', `Cannot start ${binary}: ${error.message}`, { cause: error }));
    });
  });
}

/** The error for a binary that cannot be run, saying exactly how to fix it. */
function missingBinary(binary: string, cause: NodeJS.ErrnoException): SwitchboardError {
  const what = cause.code === 'EACCES' ? 'is not executable' : 'was not found';
  return new SwitchboardError(
    'config.invalid',
    `redis-server ${what} (${binary}). switchboard starts a private Redis when REDIS_URL is unset. ` +
      'Either install it (Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`) ' +
      'or set REDIS_URL to a running Redis 6.2+ (e.g. REDIS_URL=redis://localhost:6379).',
    { details: { binary, errno: cause.code }, cause },
  );
}

/** The error for a server that failed to come up, quoting its last output lines. */
function startFailure(what: string, tail: OutputTail, binary: string): SwitchboardError {
  const output = tail.lines();
  const quoted = output.length === 0 ? ' It printed nothing.' : ` Its last output:\n${output.map((line) => `  ${line}`).join('\n')}`;
  return new SwitchboardError('internal', `Cannot start ${binary}: ${what}.${quoted}`, { details: { binary, output } });
}

function describeExit(exit: RedisExit): string {
  return exit.signal === null ? `code ${exit.code ?? 'unknown'}` : `signal ${exit.signal}`;
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process has ended. */
async function stopProcess(child: ChildProcess, exited: Promise<RedisExit>, alreadyExited: boolean, timeoutMs: number): Promise<void> {
  if (alreadyExited) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
