/**
 * A private Dovecot IMAP server for the email channel's integration tests: started as a child
 * process from a config written into a fresh temporary folder, on a free port of 127.0.0.1, with
 * plaintext logins and Maildir storage. Tests restart it, crash it and start it again to see how
 * the channel copes.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, chown, mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/runtime/redis/free-port.ts';
import { OutputTail } from '../../src/runtime/redis/output-tail.ts';
import { useStarted } from './use-started.ts';

const run = promisify(execFile);

/** Where the server listens. Loopback only: logins travel in cleartext. */
const HOST = '127.0.0.1';

/** How many times a first start is tried again on a fresh port after `EADDRINUSE`. */
const PORT_RETRIES = 3;

/** Pause between two readiness checks, in milliseconds. */
const POLL_INTERVAL_MS = 50;

/** How long one readiness check waits for the IMAP greeting, in milliseconds. */
const GREETING_TIMEOUT_MS = 2_000;

/** How many log lines a start failure quotes. */
const LOG_TAIL_LINES = 20;

/** Folders searched for the binaries after `PATH`: Debian puts `dovecot` in /usr/sbin. */
const EXTRA_BINARY_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

/** The system user that owns the mail when tests run as root (Dovecot refuses mail access as root). */
const ROOT_MAIL_USER = 'dovecot';

/** One mail account of the test server. */
export interface DovecotUser {
  /** Login name, e.g. `bot@example.com`. Stored lower-cased (Dovecot lower-cases logins). No `:`, `/`, `\` or spaces. */
  readonly user: string;
  /** Password, in cleartext. No `:` or line breaks. */
  readonly password: string;
}

/** The account a server has when {@link DovecotOptions.users} is not given. */
export const DEFAULT_DOVECOT_USER: DovecotUser = { user: 'bot@example.com', password: 'bot-password' };

/** Options of {@link startDovecot}. */
export interface DovecotOptions {
  /** The mail accounts. Default: one, {@link DEFAULT_DOVECOT_USER}. */
  readonly users?: readonly DovecotUser[];
  /** Path or name of the `dovecot` binary. Default: `dovecot` on `PATH`, then /usr/sbin and /usr/local/sbin. */
  readonly binary?: string;
  /** How long a start waits for the IMAP greeting, in milliseconds. Default 15000. */
  readonly startTimeoutMs?: number;
  /** How long {@link Dovecot.stop} waits after SIGTERM before SIGKILL, in milliseconds. Default 5000. */
  readonly stopTimeoutMs?: number;
}

/**
 * A private Dovecot. Its data (mail, UIDVALIDITY, logs) lives in {@link Dovecot.dir} until
 * {@link Dovecot.dispose}, so it survives {@link Dovecot.restart}, {@link Dovecot.kill} and
 * {@link Dovecot.start}. Calls are queued: each one starts after the previous one has settled.
 */
export interface Dovecot {
  /** `127.0.0.1`. */
  readonly host: string;
  /** TCP port; the same for the server's whole life, across restarts. */
  readonly port: number;
  /** The mail accounts. */
  readonly users: readonly DovecotUser[];
  /** The temporary folder holding config, passwd-file, mail, state and the log. */
  readonly dir: string;
  /** The Dovecot log (`<dir>/dovecot.log`), appended to by every start. */
  readonly logFile: string;
  /**
   * `imap://<user>:<password>@127.0.0.1:<port>/<mailbox>`, every part percent-encoded.
   *
   * @param user - One of {@link Dovecot.users}.
   * @param mailbox - Default `INBOX`.
   * @throws Error when `user` is not an account of this server.
   */
  url(user: string, mailbox?: string): string;
  /** Whether the server process is running. */
  isRunning(): boolean;
  /** Starts the server on {@link Dovecot.port} and waits for its IMAP greeting; does nothing when it runs. */
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL to every Dovecot process after `stopTimeoutMs`; resolves once they have ended. */
  stop(): Promise<void>;
  /** {@link Dovecot.stop}, then {@link Dovecot.start}: same port, same mail, same UIDVALIDITY. */
  restart(): Promise<void>;
  /** SIGKILL to every Dovecot process at once (a crash: open IMAP connections drop); resolves once the master has ended. */
  kill(): Promise<void>;
  /** Stops the server and removes {@link Dovecot.dir}. The server cannot be started again. */
  dispose(): Promise<void>;
  /**
   * Runs `doveadm -c <config> <args>` (as the current user, against this server's mail) and
   * returns its standard output. Most mail commands need the server running (user lookups go
   * through its auth process).
   *
   * @throws Error quoting doveadm's error output when it fails.
   */
  doveadm(args: readonly string[]): Promise<string>;
}

/**
 * Starts a private Dovecot IMAP server (`dovecot -F -c <dir>/dovecot.conf`) in a fresh temporary
 * folder and waits until it sends its IMAP greeting. Every Dovecot process is killed if this
 * process exits without stopping it.
 *
 * As root, the mail is owned by the `dovecot` system user (Dovecot refuses mail access as root);
 * otherwise by the current user.
 *
 * @throws Error naming `apt-get install dovecot-imapd` when the binary is missing; Error quoting
 *   the last Dovecot log lines when the server does not come up within `startTimeoutMs`.
 *
 * @example
 * const dovecot = await startDovecot();
 * try { await appendMail(dovecot.url('bot@example.com'), raw); } finally { await dovecot.dispose(); }
 */
export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  const users = options.users ?? [DEFAULT_DOVECOT_USER];
  assertUsers(users);
  const binaries = await findBinaries(options.binary);
  const version = await dovecotVersion(binaries.dovecot);
  const identity = await processIdentity();
  const dir = await prepareDir(users, identity);
  const setup: Setup = {
    ...binaries,
    version,
    identity,
    users,
    dir,
    configFile: join(dir, 'dovecot.conf'),
    logFile: join(dir, 'dovecot.log'),
    startTimeoutMs: options.startTimeoutMs ?? 15_000,
    stopTimeoutMs: options.stopTimeoutMs ?? 5_000,
  };
  try {
    const { running, port } = await startOnFreePort(setup);
    return handle(setup, port, running);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Gives a test file one private Dovecot, started before its tests and disposed of (folder removed)
 * after them. Call it at the top level of a test file, or inside a `describe`.
 *
 * @param options - As for {@link startDovecot}.
 * @returns A getter for the server; it throws when called before `beforeAll` has run.
 *
 * @example
 * const dovecot = useDovecot();
 * it('reads mail', async () => { await appendMail(dovecot().url('bot@example.com'), raw); ... });
 */
export function useDovecot(options?: DovecotOptions): () => Dovecot {
  return useStarted(() => startDovecot(options), (dovecot) => dovecot.dispose(), { name: 'useDovecot()' });
}

/** Everything a start needs, fixed for the server's life. */
interface Setup {
  readonly dovecot: string;
  readonly doveadm: string;
  readonly version: DovecotVersion;
  readonly identity: Identity;
  readonly users: readonly DovecotUser[];
  readonly dir: string;
  readonly configFile: string;
  readonly logFile: string;
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
}

/** Who the Dovecot processes run as. */
type Identity =
  | { readonly kind: 'root'; readonly mailUid: number; readonly mailGid: number }
  | { readonly kind: 'user'; readonly user: string; readonly group: string };

interface DovecotVersion {
  readonly major: number;
  readonly minor: number;
  /** As printed by `dovecot --version`, e.g. `2.3.19.1 (9b53102964)`. */
  readonly text: string;
}

/** One server process: the master, leader of its own process group. */
interface Running {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Settles when the master has ended; never rejects. */
  readonly exited: Promise<void>;
  hasExited(): boolean;
}

/** The {@link Dovecot} object around a started server. */
function handle(setup: Setup, port: number, first: Running): Dovecot {
  let running: Running | undefined = first;
  let disposed = false;
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(operation: () => Promise<T>): Promise<T> => {
    const result = queue.then(operation);
    queue = result.catch(() => undefined);
    return result;
  };
  const isRunning = (): boolean => running !== undefined && !running.hasExited();
  const start = async (): Promise<void> => {
    if (disposed) throw new Error('Dovecot: start() after dispose()');
    if (!isRunning()) running = await startOnPort(setup, port);
  };
  const stop = async (): Promise<void> => {
    if (running !== undefined) await stopProcess(running, setup.stopTimeoutMs);
    running = undefined;
  };
  const kill = async (): Promise<void> => {
    if (running !== undefined) await killProcess(running);
    running = undefined;
  };
  return {
    host: HOST,
    port,
    users: setup.users,
    dir: setup.dir,
    logFile: setup.logFile,
    url: (user, mailbox) => imapUrl(setup.users, port, user, mailbox),
    isRunning,
    start: () => serially(start),
    stop: () => serially(stop),
    restart: () => serially(async () => {
      await stop();
      await start();
    }),
    kill: () => serially(kill),
    dispose: () => serially(async () => {
      disposed = true;
      await stop();
      await rm(setup.dir, { recursive: true, force: true });
    }),
    doveadm: (args) => doveadm(setup, args),
  };
}

function imapUrl(users: readonly DovecotUser[], port: number, user: string, mailbox = 'INBOX'): string {
  const account = users.find((candidate) => candidate.user === user);
  if (account === undefined) throw new Error(`Dovecot: no account ${JSON.stringify(user)} (accounts: ${users.map((u) => u.user).join(', ')})`);
  const encode = encodeURIComponent;
  return `imap://${encode(account.user)}:${encode(account.password)}@${HOST}:${port}/${encode(mailbox)}`;
}

function assertUsers(users: readonly DovecotUser[]): void {
  if (users.length === 0) throw new Error('startDovecot(): give at least one user');
  const seen = new Set<string>();
  for (const { user, password } of users) {
    if (!/^[^\s:/\\]+$/.test(user)) throw new Error(`startDovecot(): user name ${JSON.stringify(user)} must not be empty or hold spaces, ":", "/" or "\\"`);
    if (password === '' || /[:\r\n]/.test(password)) throw new Error(`startDovecot(): the password of ${user} must not be empty or hold ":" or line breaks`);
    const key = user.toLowerCase();
    if (seen.has(key)) throw new Error(`startDovecot(): user ${user} is listed twice`);
    seen.add(key);
  }
}

// ---------------------------------------------------------------------------------------------
// Binaries, version and identity

async function findBinaries(binary: string | undefined): Promise<{ dovecot: string; doveadm: string }> {
  const dovecot = binary ?? (await findOnPath('dovecot'));
  if (dovecot === undefined || !(await isExecutable(dovecot))) throw missingBinary(binary ?? 'dovecot');
  const doveadm = await findOnPath('doveadm');
  if (doveadm === undefined) throw missingBinary('doveadm');
  return { dovecot, doveadm };
}

/** The first executable `name` in `PATH`, then in {@link EXTRA_BINARY_DIRS}. */
async function findOnPath(name: string): Promise<string | undefined> {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== ''), ...EXTRA_BINARY_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function missingBinary(binary: string): Error {
  return new Error(
    `${binary} was not found (looked on PATH and in ${EXTRA_BINARY_DIRS.join(', ')}). The email integration tests start a private ` +
      'Dovecot IMAP server: install it (Debian/Ubuntu: `apt-get install dovecot-imapd`; macOS: `brew install dovecot`).',
  );
}

async function dovecotVersion(binary: string): Promise<DovecotVersion> {
  const { stdout } = await run(binary, ['--version']);
  const text = stdout.trim();
  const match = /^(\d+)\.(\d+)/.exec(text);
  if (match === null) throw new Error(`Cannot read the Dovecot version from \`${binary} --version\`: ${JSON.stringify(text)}`);
  return { major: Number(match[1]), minor: Number(match[2]), text };
}

async function processIdentity(): Promise<Identity> {
  if (process.getuid?.() === 0) {
    const [uid, gid] = await Promise.all([idOf(['-u', ROOT_MAIL_USER]), idOf(['-g', ROOT_MAIL_USER])]);
    return { kind: 'root', mailUid: Number(uid), mailGid: Number(gid) };
  }
  return { kind: 'user', user: userInfo().username, group: await idOf(['-gn']) };
}

async function idOf(args: readonly string[]): Promise<string> {
  try {
    return (await run('id', args)).stdout.trim();
  } catch (error) {
    throw new Error(`\`id ${args.join(' ')}\` failed: the Dovecot packages create the users it needs (reinstall dovecot-core).`, { cause: error });
  }
}

// ---------------------------------------------------------------------------------------------
// Files

/** Makes the temporary folder with the passwd-file and the mail folder, readable by the Dovecot processes. */
async function prepareDir(users: readonly DovecotUser[], identity: Identity): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-test-dovecot-'));
  assertPlainPath(dir);
  const mailDir = join(dir, 'mail');
  const usersFile = join(dir, 'users');
  await mkdir(mailDir);
  await writeFile(usersFile, usersFileText(users, mailDir), { mode: 0o600 });
  if (identity.kind === 'root') {
    // The auth process runs as `dovecot` and the mail processes as the mail user: they must reach in.
    await chmod(dir, 0o711);
    await chown(usersFile, 0, identity.mailGid);
    await chmod(usersFile, 0o640);
    await chown(mailDir, identity.mailUid, identity.mailGid);
  }
  return dir;
}

/** Dovecot's config has no quoting that works everywhere (passdb args): refuse paths that need it. */
function assertPlainPath(path: string): void {
  if (!/^[\w./@+-]+$/.test(path)) throw new Error(`Dovecot: the temporary folder ${path} holds characters its config cannot take; set TMPDIR to a plain path`);
}

/** `user:{PLAIN}password:uid:gid:gecos:home:shell:extra`, uid and gid left to `mail_uid`. */
function usersFileText(users: readonly DovecotUser[], mailDir: string): string {
  return users.map(({ user, password }) => `${user.toLowerCase()}:{PLAIN}${password}::::${join(mailDir, user.toLowerCase())}::\n`).join('');
}

/** What Dovecot 2.3 (Debian 12) and 2.4 (Debian 13) spell differently. */
interface Dialect {
  /** Lines that must open the file. */
  readonly preamble: string;
  /** Allows plaintext logins without TLS. */
  readonly cleartext: string;
  /** Maildir under each user's home (the passwd-file gives the home). */
  readonly mailLocation: string;
  /** Password and user lookups, both from the passwd-file. */
  authDatabases(usersFile: string): string;
}

const DIALECT_2_3: Dialect = {
  preamble: '',
  cleartext: 'disable_plaintext_auth = no',
  mailLocation: 'mail_location = maildir:~/Maildir',
  authDatabases: (usersFile) =>
    `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN ${usersFile}\n}\n` +
    `userdb {\n  driver = passwd-file\n  args = ${usersFile}\n}`,
};

/** Written from the 2.4 upgrade notes; run only where 2.4 is installed (Debian 12 has 2.3). */
const DIALECT_2_4: Dialect = {
  preamble: 'dovecot_config_version = 2.4.0\ndovecot_storage_version = 2.4.0\n',
  cleartext: 'auth_allow_cleartext = yes',
  mailLocation: 'mail_driver = maildir\nmail_path = ~/Maildir',
  authDatabases: (usersFile) =>
    `passdb passwd-file {\n  passwd_file_path = ${usersFile}\n}\n` +
    `userdb passwd-file {\n  passwd_file_path = ${usersFile}\n}`,
};

function dialectOf(version: DovecotVersion): Dialect {
  return version.major > 2 || (version.major === 2 && version.minor >= 4) ? DIALECT_2_4 : DIALECT_2_3;
}

/** The whole config: nothing comes from /etc/dovecot. */
function configText(setup: Setup, port: number): string {
  const { dir, identity } = setup;
  const dialect = dialectOf(setup.version);
  // `auth_username_chars =` allows any character in a login (the default list refuses `+`).
  // `first_valid_uid = 1` lets the `dovecot` system user (uid below 500) own mail.
  return `${dialect.preamble}base_dir = ${join(dir, 'run')}
state_dir = ${join(dir, 'state')}
log_path = ${setup.logFile}
protocols = imap
listen = ${HOST}
ssl = no
${dialect.cleartext}
auth_mechanisms = plain login
auth_username_chars =
first_valid_uid = 1
${identityLines(identity).join('\n')}
${dialect.mailLocation}
namespace inbox {
  inbox = yes
  separator = /
}
${dialect.authDatabases(join(dir, 'users'))}
${serviceLines(identity, port).join('\n')}
`;
}

/** The IMAP listener on `port` (no IMAPS); without root, services that would chroot() do not. */
function serviceLines(identity: Identity, port: number): string[] {
  const noChroot = identity.kind === 'user' ? ['  chroot ='] : [];
  return [
    'service imap-login {',
    ...noChroot,
    '  inet_listener imap {',
    `    port = ${port}`,
    '  }',
    '  inet_listener imaps {',
    '    port = 0',
    '  }',
    '}',
    ...(identity.kind === 'user' ? ['service anvil {', ...noChroot, '}'] : []),
  ];
}

function identityLines(identity: Identity): string[] {
  if (identity.kind === 'root') {
    // Dovecot never opens mail as root; its own services keep their defaults (dovecot, dovenull).
    return [`mail_uid = ${identity.mailUid}`, `mail_gid = ${identity.mailGid}`];
  }
  return [`default_internal_user = ${identity.user}`, `default_internal_group = ${identity.group}`, `default_login_user = ${identity.user}`];
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The last lines of `path` written after byte `from`. */
async function logLinesSince(path: string, from: number): Promise<string[]> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await file.stat();
    const length = Math.max(0, Math.min(size - from, 64 * 1024));
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n').filter((line) => line.trim() !== '').slice(-LOG_TAIL_LINES);
  } finally {
    await file.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Starting

type LaunchOutcome = { readonly kind: 'started'; readonly running: Running } | { readonly kind: 'port-in-use' };

/** The first start: a free port from the OS, another one when something takes it first. */
async function startOnFreePort(setup: Setup): Promise<{ running: Running; port: number }> {
  for (let attempt = 0; attempt <= PORT_RETRIES; attempt += 1) {
    const port = await findFreePort(HOST);
    const outcome = await launch(setup, port, Date.now() + setup.startTimeoutMs);
    if (outcome.kind === 'started') return { running: outcome.running, port };
  }
  throw new Error(`Cannot start dovecot: no free port on ${HOST} after ${PORT_RETRIES + 1} tries`);
}

/** Later starts: the same port, waiting while the processes of the previous run let it go. */
async function startOnPort(setup: Setup, port: number): Promise<Running> {
  const deadline = Date.now() + setup.startTimeoutMs;
  for (;;) {
    const outcome = await launch(setup, port, deadline);
    if (outcome.kind === 'started') return outcome.running;
    if (Date.now() >= deadline) throw new Error(`Cannot start dovecot: port ${port} on ${HOST} stayed in use for ${setup.startTimeoutMs} ms`);
    await sleep(POLL_INTERVAL_MS);
  }
}

/** Starts one master process on `port` and waits until it greets, exits or `deadline` passes. */
async function launch(setup: Setup, port: number, deadline: number): Promise<LaunchOutcome> {
  await writeFile(setup.configFile, configText(setup, port));
  // Left by a killed master; a reused pid would make Dovecot think it still runs.
  await rm(join(setup.dir, 'run', 'master.pid'), { force: true });
  const logStart = await fileSize(setup.logFile);
  const tail = new OutputTail(LOG_TAIL_LINES);
  const running = await spawnMaster(setup, tail);
  while (!(await Promise.race([imapGreets(port), running.exited.then(() => false)]))) {
    if (running.hasExited()) {
      const log = [...tail.lines(), ...(await logLinesSince(setup.logFile, logStart))];
      if (log.some((line) => line.includes('Address already in use'))) return { kind: 'port-in-use' };
      throw startFailure(setup, port, `dovecot exited (code ${running.child.exitCode ?? 'none'}, signal ${running.child.signalCode ?? 'none'}) before greeting`, log);
    }
    if (Date.now() >= deadline) {
      await killProcess(running);
      const log = [...tail.lines(), ...(await logLinesSince(setup.logFile, logStart))];
      throw startFailure(setup, port, `no IMAP greeting within ${setup.startTimeoutMs} ms`, log);
    }
    await sleep(POLL_INTERVAL_MS);
  }
  return { kind: 'started', running };
}

/** Spawns `dovecot -F -c <config>` as the leader of a new process group, killed when this process exits. */
async function spawnMaster(setup: Setup, tail: OutputTail): Promise<Running> {
  const child = spawn(setup.dovecot, ['-F', '-c', setup.configFile], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const onOutput = (chunk: Buffer): void => {
    tail.push(chunk.toString('utf8'));
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  let ended = false;
  const exited = new Promise<void>((done) => {
    child.once('exit', () => {
      ended = true;
      done();
    });
  });
  await spawned(child, setup.dovecot);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`Cannot start ${setup.dovecot}: no process id`);
  // Later errors (a failed kill) must not crash the test process as unhandled 'error' events.
  child.on('error', () => undefined);
  const killOnParentExit = (): void => {
    signalGroup(pid, 'SIGKILL');
  };
  process.on('exit', killOnParentExit);
  void exited.then(() => process.off('exit', killOnParentExit));
  return { child, pid, exited, hasExited: () => ended };
}

function spawned(child: ChildProcess, binary: string): Promise<void> {
  return new Promise((done, fail) => {
    child.once('spawn', () => {
      done();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      fail(error.code === 'ENOENT' || error.code === 'EACCES' ? missingBinary(binary) : new Error(`Cannot start ${binary}: ${error.message}`, { cause: error }));
    });
  });
}

/** Whether an IMAP server on `port` sends its ready greeting (not Dovecot's "Waiting for authentication"). */
function imapGreets(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: HOST, port });
    let received = '';
    const finish = (ready: boolean): void => {
      socket.destroy();
      done(ready);
    };
    socket.setTimeout(GREETING_TIMEOUT_MS, () => {
      finish(false);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const lines = received.split('\r\n').slice(0, -1);
      if (lines.some((line) => line.startsWith('* OK') && !line.includes('Waiting for authentication'))) finish(true);
    });
    socket.on('error', () => {
      finish(false);
    });
    socket.on('close', () => {
      finish(false);
    });
  });
}

function startFailure(setup: Setup, port: number, what: string, log: readonly string[]): Error {
  const quoted = log.length === 0 ? ' It logged nothing.' : ` Its last log lines:\n${log.map((line) => `  ${line}`).join('\n')}`;
  return new Error(`Cannot start dovecot ${setup.version.text} on ${HOST}:${port}: ${what}.${quoted}`);
}

// ---------------------------------------------------------------------------------------------
// Stopping

/** Signals every process of the group led by `pid`; a group that has ended is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every process of the group has ended already.
  }
}

/** SIGTERM to the master (it stops its services), SIGKILL to the whole group after `timeoutMs`. */
async function stopProcess(running: Running, timeoutMs: number): Promise<void> {
  if (!running.hasExited()) {
    running.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      signalGroup(running.pid, 'SIGKILL');
    }, timeoutMs);
    try {
      await running.exited;
    } finally {
      clearTimeout(timer);
    }
  }
  // A service the master did not wait for (the log process) must not outlive it.
  signalGroup(running.pid, 'SIGKILL');
}

async function killProcess(running: Running): Promise<void> {
  signalGroup(running.pid, 'SIGKILL');
  await running.exited;
}

// ---------------------------------------------------------------------------------------------
// doveadm

async function doveadm(setup: Setup, args: readonly string[]): Promise<string> {
  try {
    return (await run(setup.doveadm, ['-c', setup.configFile, ...args])).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    const detail = typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim() : String(error);
    throw new Error(`doveadm ${args.join(' ')} failed: ${detail}`, { cause: error });
  }
}
