/**
 * Mail on an IMAP server, for tests: deliver a raw message (IMAP APPEND), list what a mailbox holds,
 * and give a mailbox a new UIDVALIDITY on the private Dovecot of `dovecot.ts`.
 */
import { ImapFlow } from 'imapflow';
import type { Dovecot } from './dovecot.ts';

/** Where a message was stored. */
export interface AppendedMail {
  /** Its UID in the mailbox. */
  readonly uid: number;
  /** The mailbox's UIDVALIDITY when it was stored. */
  readonly uidValidity: number;
}

/** Options of {@link appendMail}. */
export interface AppendMailOptions {
  /** Mailbox to store into; created when missing. Default: the mailbox of the URL (`INBOX` when it names none). */
  readonly mailbox?: string;
  /** Flags to store with the message, e.g. `['\\Seen']`. Default: none. */
  readonly flags?: readonly string[];
}

/** One message of {@link mailboxUids}. */
export interface MailboxEntry {
  /** Its UID in the mailbox. */
  readonly uid: number;
  /** Whether it has the `\Seen` flag. */
  readonly seen: boolean;
}

/**
 * Stores a raw RFC 5322 message in a mailbox over IMAP (APPEND) — how tests deliver mail to the
 * bot. Dovecot hands messages back (FETCH) with CRLF line ends whatever was appended: write CRLF
 * to compare sources byte for byte.
 *
 * @param url - `imap://user:password@host:port[/mailbox]`, e.g. from `Dovecot.url()`.
 * @throws Error when the server does not report the new UID (it needs UIDPLUS; Dovecot has it).
 */
export async function appendMail(url: string, raw: string | Buffer, options: AppendMailOptions = {}): Promise<AppendedMail> {
  const target = parseUrl(url);
  const mailbox = options.mailbox ?? target.mailbox;
  return withClient(target, async (client) => {
    if (mailbox.toUpperCase() !== 'INBOX') await client.mailboxCreate(mailbox);
    const result = await client.append(mailbox, raw, [...(options.flags ?? [])]);
    if (result === false || result.uid === undefined || result.uidValidity === undefined) {
      throw new Error(`appendMail(): the server did not report the UID of the message appended to ${mailbox}`);
    }
    return { uid: result.uid, uidValidity: Number(result.uidValidity) };
  });
}

/**
 * Lists the messages of the URL's mailbox (`INBOX` when it names none) by UID, ascending, with
 * their `\Seen` flag. Opens the mailbox read-only, so it changes no flag.
 */
export async function mailboxUids(url: string): Promise<MailboxEntry[]> {
  const target = parseUrl(url);
  return withClient(target, async (client) => {
    const lock = await client.getMailboxLock(target.mailbox, { readOnly: true });
    try {
      if (client.mailbox === false || client.mailbox.exists === 0) return [];
      const messages = await client.fetchAll('1:*', { uid: true, flags: true });
      return messages.map((message) => ({ uid: message.uid, seen: message.flags?.has('\\Seen') ?? false })).sort((a, b) => a.uid - b.uid);
    } finally {
      lock.release();
    }
  });
}

/** The UIDVALIDITY of the URL's mailbox (`INBOX` when it names none), read with STATUS. */
export async function uidValidityOf(url: string): Promise<number> {
  const target = parseUrl(url);
  return withClient(target, async (client) => {
    const status = await client.status(target.mailbox, { uidValidity: true });
    if (status === false || status.uidValidity === undefined) throw new Error(`uidValidityOf(): no UIDVALIDITY for ${target.mailbox}`);
    return Number(status.uidValidity);
  });
}

/**
 * Gives a mailbox of a running {@link Dovecot} a new UIDVALIDITY — as after a server-side rebuild
 * or restore — with `doveadm mailbox update --uid-validity`: the old value plus one (1 after
 * 2^32 - 1). Its messages stay, under the same UIDs; every UID a client remembered from before is
 * void. Open IMAP sessions on the mailbox notice it on their next sync.
 *
 * @param mailbox - Default `INBOX`; must exist.
 * @returns The new UIDVALIDITY.
 * @throws Error when doveadm fails or the value does not change.
 */
export async function resetMailbox(dovecot: Pick<Dovecot, 'doveadm'>, user: string, mailbox = 'INBOX'): Promise<number> {
  const before = await doveadmUidValidity(dovecot, user, mailbox);
  const next = before >= 0xffff_ffff ? 1 : before + 1;
  await dovecot.doveadm(['mailbox', 'update', '-u', user, '--uid-validity', String(next), mailbox]);
  const after = await doveadmUidValidity(dovecot, user, mailbox);
  if (after !== next) throw new Error(`resetMailbox(): UIDVALIDITY of ${mailbox} is ${after} after setting it to ${next}`);
  return after;
}

async function doveadmUidValidity(dovecot: Pick<Dovecot, 'doveadm'>, user: string, mailbox: string): Promise<number> {
  const output = await dovecot.doveadm(['-f', 'flow', 'mailbox', 'status', '-u', user, 'uidvalidity', mailbox]);
  const match = /\buidvalidity=(\d+)/.exec(output);
  if (match === null) throw new Error(`resetMailbox(): cannot read UIDVALIDITY of ${mailbox} from doveadm: ${JSON.stringify(output.trim())}`);
  return Number(match[1]);
}

/** The parts of an `imap://` URL. */
interface ImapTarget {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string;
  readonly password: string;
  readonly mailbox: string;
}

function parseUrl(url: string): ImapTarget {
  const parsed = URL.parse(url);
  if (parsed === null || (parsed.protocol !== 'imap:' && parsed.protocol !== 'imaps:') || parsed.username === '') {
    throw new Error('expected an IMAP URL like imap://user:password@127.0.0.1:1143/INBOX');
  }
  const secure = parsed.protocol === 'imaps:';
  const path = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? (secure ? 993 : 143) : Number(parsed.port),
    secure,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    mailbox: path === '' ? 'INBOX' : path,
  };
}

/** Connects and logs in, runs `use`, logs out (or drops the connection when `use` failed). */
async function withClient<T>(target: ImapTarget, use: (client: ImapFlow) => Promise<T>): Promise<T> {
  const client = new ImapFlow({
    host: target.host,
    port: target.port,
    secure: target.secure,
    doSTARTTLS: false,
    auth: { user: target.user, pass: target.password },
    logger: false,
    connectionTimeout: 10_000,
  });
  // Connection errors reject the pending call; the event must not crash the test process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await use(client);
    await client.logout();
    return result;
  } finally {
    client.close();
  }
}
