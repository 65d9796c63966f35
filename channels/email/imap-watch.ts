/**
 * The IMAP side of the email listener: one connection at a time to the mailbox, a catch-up by UID
 * from the saved cursor on every (re)connect and on every new-mail notice, IDLE in between (broken
 * and restarted every few minutes, since IDLE can die silently), and a new client with backoff after
 * every close (an imapflow client is never reused once closed). Each mail is handed to `take` and
 * only then is the cursor advanced, through the lease fence: at-least-once, with the enqueue
 * deduplicated downstream.
 */
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import type { Logger } from 'pino';
import type { ListenerFence, RunningListener } from '../channel.ts';
import { pause, systemClock } from '../kit/lease/lease-clock.ts';
import { reconnectDelayMs, type ReconnectBackoff } from '../../queues/redis-connections.ts';
import type { ImapEnv } from '../../src/config/env-types.ts';
import type { MailboxCursor } from './mailbox-cursor.ts';

/** One mail as the listener hands it on. */
export interface FetchedMail {
  readonly uidValidity: number;
  readonly uid: number;
  /** The whole message, or only its header block when {@link FetchedMail.tooLarge}. */
  readonly source: Buffer;
  /** Size of the whole message on the server, in bytes. */
  readonly sizeBytes: number;
  /** The message is larger than `maxMessageBytes` and was not downloaded. */
  readonly tooLarge: boolean;
}

/** Options of {@link watchMailbox}. */
export interface WatchMailboxOptions {
  readonly imap: ImapEnv;
  readonly cursor: MailboxCursor;
  readonly fence: ListenerFence;
  /** Takes one mail in; a rejection leaves the cursor where it was and reconnects (the mail is read again). */
  readonly take: (mail: FetchedMail) => Promise<void>;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** How long IDLE runs before it is broken and restarted, in ms. Default 240000 (4 minutes). */
  readonly maxIdleTimeMs?: number;
  /** Largest message downloaded, in bytes. Default 52428800 (50 MiB); larger ones come as headers only. */
  readonly maxMessageBytes?: number;
  /** Reconnect delays. Default 500 ms doubling up to 30000 ms. */
  readonly backoff?: ReconnectBackoff;
  /** Makes the client; default `new ImapFlow(options)`. */
  readonly createClient?: (options: ImapFlowOptions) => ImapFlow;
}

/** A connection that lasted this long resets the backoff. */
const HEALTHY_MS = 60_000;

function clientOptions(imap: ImapEnv, maxIdleTimeMs: number): ImapFlowOptions {
  return {
    host: imap.host,
    port: imap.port,
    secure: imap.secure,
    auth: { user: imap.user, pass: imap.password },
    logger: false,
    qresync: true,
    maxIdleTime: maxIdleTimeMs,
    // IDLE soon after each catch-up: new mail is noticed within a second, not after imapflow's default 15 s.
    autoIdleDelay: 1000,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: maxIdleTimeMs + 60_000,
  };
}

/** The UIDs to take now, ascending, with their sizes. */
async function pending(client: ImapFlow, after: number | undefined): Promise<{ uid: number; size: number; seen: boolean }[]> {
  const found: { uid: number; size: number; seen: boolean }[] = [];
  const range = after === undefined ? '1:*' : `${after + 1}:*`;
  for await (const message of client.fetch(range, { uid: true, size: true, flags: true }, { uid: true })) {
    // `n:*` always names the newest message, even when n is above every UID: drop what is not new.
    if (after !== undefined && message.uid <= after) continue;
    found.push({ uid: message.uid, size: message.size ?? 0, seen: message.flags?.has('\\Seen') === true });
  }
  return found.sort((a, b) => a.uid - b.uid);
}

async function download(client: ImapFlow, uid: number, tooLarge: boolean): Promise<Buffer> {
  const message = await client.fetchOne(String(uid), tooLarge ? { headers: true } : { source: true }, { uid: true });
  if (message === false) throw new Error(`IMAP message ${uid} disappeared before it was read`);
  const bytes = tooLarge ? message.headers : message.source;
  if (bytes === undefined) throw new Error(`IMAP message ${uid} came without its ${tooLarge ? 'headers' : 'source'}`);
  return tooLarge ? Buffer.concat([bytes, Buffer.from('\r\n')]) : bytes;
}

/** Takes every new mail of the open mailbox, advancing the cursor after each. */
async function catchUp(client: ImapFlow, options: WatchMailboxOptions, uidValidity: number, maxBytes: number): Promise<void> {
  const saved = await options.cursor.load();
  const fresh = saved?.uidValidity !== uidValidity;
  if (fresh) options.logger.info({ uidValidity, previous: saved?.uidValidity }, 'email: new UIDVALIDITY, reading unseen mail again');
  const list = await pending(client, fresh ? undefined : saved.lastUid);
  for (const { uid, size, seen } of list) {
    options.fence.signal.throwIfAborted();
    // On a first start or a UIDVALIDITY change only unread mail is taken (mail read by the bot before is \Seen).
    if (!fresh || !seen) {
      const tooLarge = size > maxBytes;
      await options.take({ uidValidity, uid, source: await download(client, uid, tooLarge), sizeBytes: size, tooLarge });
      await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    }
    await options.cursor.advance(options.fence, { uidValidity, lastUid: uid });
  }
  if (fresh && list.length === 0) await options.cursor.advance(options.fence, { uidValidity, lastUid: 0 });
}

/** One connection: open, catch up, follow new mail until the connection closes or `signal` aborts. */
async function session(options: WatchMailboxOptions, signal: AbortSignal, onClient: (client: ImapFlow | undefined) => void): Promise<void> {
  const maxIdleTimeMs = options.maxIdleTimeMs ?? 240_000;
  const client = (options.createClient ?? ((o) => new ImapFlow(o)))(clientOptions(options.imap, maxIdleTimeMs));
  onClient(client);
  const ended = new Promise<void>((resolve) => client.once('close', () => { resolve(); }));
  client.on('error', (error: unknown) => { options.logger.warn({ err: error }, 'email: IMAP connection error'); });
  const abort = (): void => { client.close(); };
  signal.addEventListener('abort', abort, { once: true });
  try {
    await client.connect();
    const mailbox = await client.mailboxOpen(options.imap.mailbox);
    const uidValidity = Number(mailbox.uidValidity);
    let chain = Promise.resolve();
    const pull = (): void => {
      chain = chain
        .then(() => catchUp(client, options, uidValidity, options.maxMessageBytes ?? 52_428_800))
        .catch((error: unknown) => {
          options.logger.warn({ err: error }, 'email: catch-up failed; reconnecting');
          client.close();
        });
    };
    client.on('exists', pull);
    pull();
    await ended;
    await chain;
  } finally {
    signal.removeEventListener('abort', abort);
    client.close();
    onClient(undefined);
  }
}

/**
 * Watches the mailbox until stopped or until the fence's lease is lost.
 *
 * @example
 * const running = watchMailbox({ imap: env.email.imap, cursor, fence, take, logger });
 * await running.stop();
 */
export function watchMailbox(options: WatchMailboxOptions): RunningListener {
  const stopping = new AbortController();
  const signal = AbortSignal.any([stopping.signal, options.fence.signal]);
  let current: ImapFlow | undefined;
  // A function, not the property: the session awaited below can abort the signal.
  const stopped = (): boolean => signal.aborted;
  const loop = (async () => {
    let failures = 0;
    while (!stopped()) {
      const started = Date.now();
      try {
        await session(options, signal, (client) => { current = client; });
      } catch (error) {
        if (!stopped()) options.logger.warn({ err: error }, 'email: IMAP session failed');
      }
      failures = Date.now() - started > HEALTHY_MS ? 1 : failures + 1;
      if (stopped()) break;
      const delayMs = reconnectDelayMs(failures, { baseDelayMs: 500, maxDelayMs: 30_000, ...options.backoff });
      options.logger.info({ delayMs, failures }, 'email: IMAP connection closed; reconnecting');
      await pause(systemClock, delayMs, signal);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      current?.close();
      await loop;
    },
  };
}
