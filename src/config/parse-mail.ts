import type { EnvReader } from './env-reader.ts';
import type { EnvVariable } from './env-variables.ts';
import type { ImapEnv, MailServerEnv } from './env-types.ts';
import { isTcpPort, safeDecode } from './parse-url.ts';

/** The two URL schemes of one mail protocol and their default ports. */
interface MailScheme {
  readonly plain: string;
  readonly secure: string;
  readonly plainPort: number;
  readonly securePort: number;
  readonly example: string;
}

const IMAP: MailScheme = {
  plain: 'imap:',
  secure: 'imaps:',
  plainPort: 143,
  securePort: 993,
  example: 'imap://user:pass@host:143/INBOX or imaps://user:pass@host:993/INBOX',
};

const SMTP: MailScheme = {
  plain: 'smtp:',
  secure: 'smtps:',
  plainPort: 587,
  securePort: 465,
  example: 'smtp://user:pass@host:587 or smtps://user:pass@host:465',
};

/**
 * Parses the common part of a mail server URL. Problems never quote the value: it usually holds
 * a password.
 */
function parseMailServer(
  reader: EnvReader,
  name: EnvVariable,
  value: string,
  scheme: MailScheme,
): { server: MailServerEnv; url: URL } | undefined {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== scheme.plain && url.protocol !== scheme.secure)) {
    reader.fail(name, `must be a URL like ${scheme.example}.`);
    return undefined;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') {
    reader.fail(name, `has no host name (expected ${scheme.example}).`);
    return undefined;
  }
  if (url.search !== '' || url.hash !== '') {
    reader.fail(name, 'must not have a query (?) or fragment (#).');
    return undefined;
  }
  const secure = url.protocol === scheme.secure;
  const port = url.port === '' ? (secure ? scheme.securePort : scheme.plainPort) : Number(url.port);
  if (!isTcpPort(port)) {
    reader.fail(name, 'has a port outside 1..65535.');
    return undefined;
  }
  const user = url.username === '' ? undefined : safeDecode(url.username);
  const password = url.password === '' ? undefined : safeDecode(url.password);
  if ((url.username !== '' && user === undefined) || (url.password !== '' && password === undefined)) {
    reader.fail(name, 'has a badly percent-encoded user name or password (encode @ as %40, : as %3A, / as %2F).');
    return undefined;
  }
  return { server: { host, port, secure, user, password }, url };
}

/** Parses `IMAP_URL`: `imap[s]://user:pass@host[:port][/mailbox]`, user and password required. */
export function parseImapUrl(reader: EnvReader, name: EnvVariable, value: string): ImapEnv | undefined {
  const parsed = parseMailServer(reader, name, value, IMAP);
  if (parsed === undefined) return undefined;
  const { server, url } = parsed;
  if (server.user === undefined || server.password === undefined) {
    reader.fail(name, `needs a user name and a password (expected ${IMAP.example}).`);
    return undefined;
  }
  const path = url.pathname.replace(/^\//, '');
  const mailbox = path === '' ? 'INBOX' : safeDecode(path);
  if (mailbox === undefined) {
    reader.fail(name, 'has a badly percent-encoded mailbox name.');
    return undefined;
  }
  return { ...server, user: server.user, password: server.password, mailbox };
}

/** Parses `SMTP_URL`: `smtp[s]://[user:pass@]host[:port]`; a user name needs a password. */
export function parseSmtpUrl(reader: EnvReader, name: EnvVariable, value: string): MailServerEnv | undefined {
  const parsed = parseMailServer(reader, name, value, SMTP);
  if (parsed === undefined) return undefined;
  const { server, url } = parsed;
  if (url.pathname !== '' && url.pathname !== '/') {
    reader.fail(name, `must not have a path (expected ${SMTP.example}).`);
    return undefined;
  }
  if (server.user !== undefined && server.password === undefined) {
    reader.fail(name, 'has a user name but no password.');
    return undefined;
  }
  return server;
}

/** A `From:` value split into its display form and bare address. */
export interface ParsedFrom {
  /** The value as written, e.g. `Concierge <bot@example.com>`. */
  readonly from: string;
  /** The bare address, e.g. `bot@example.com`. */
  readonly address: string;
}

const BARE_ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;
const NAMED_ADDRESS = /^[^<>]*<([^\s@<>"]+@[^\s@<>"]+)>$/;

/** Parses `bot@example.com` or `Display Name <bot@example.com>`; `undefined` when neither. */
export function parseFrom(value: string): ParsedFrom | undefined {
  if (BARE_ADDRESS.test(value)) return { from: value, address: value };
  const named = NAMED_ADDRESS.exec(value);
  const address = named?.[1];
  return address === undefined ? undefined : { from: value, address };
}
