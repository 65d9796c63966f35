/**
 * The nodemailer transporter the email channel sends through, made from the parsed `SMTP_URL`.
 * One connection per message (no pool: the outbound queue already spaces sends, and a pooled
 * connection that went stale fails the next send for nothing).
 */
import { createTransport, type SMTPSentMessageInfo, type SMTPTransportOptions, type Transporter } from 'nodemailer';
import type { MailServerEnv } from '../../src/config/env-types.ts';

/** The transporter type the sender takes; `verify()` checks connection and login (`switchboard doctor`). */
export type SmtpTransporter = Transporter<SMTPSentMessageInfo, SMTPTransportOptions>;

/** Time to open the TCP (and, for `smtps:`, TLS) connection, in milliseconds. */
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
/** Time to wait for the server's greeting once connected, in milliseconds. */
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
/** Longest silence of the server during a send before the attempt fails, in milliseconds. */
export const SMTP_SOCKET_TIMEOUT_MS = 60_000;

/** Whether `host` is this machine (`localhost`, `127.0.0.0/8`, `::1`). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare.endsWith('.localhost') || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * A transporter for `smtp`:
 * - `smtps:` (`secure`): TLS from the first byte (usually port 465);
 * - `smtp:`: STARTTLS whenever the server offers it. It is required (the send fails without it)
 *   when a password would otherwise cross the network in clear, that is with a user name and a
 *   host that is not loopback; a local relay or test server may speak plain SMTP.
 *
 * Credentials are sent only when the URL has a user. Messages may never read files or fetch URLs
 * (`disableFileAccess`, `disableUrlAccess`): attachment bytes come from the artifact store.
 * Timeouts: {@link SMTP_CONNECTION_TIMEOUT_MS}, {@link SMTP_GREETING_TIMEOUT_MS},
 * {@link SMTP_SOCKET_TIMEOUT_MS}.
 *
 * @example
 * const transport = createSmtpTransport(env.email.smtp);
 * await transport.verify(); // doctor: connects and logs in
 * transport.close();
 */
export function createSmtpTransport(smtp: MailServerEnv): SmtpTransporter {
  const auth = smtp.user === undefined ? undefined : { user: smtp.user, pass: smtp.password ?? '' };
  const config: SMTPTransportOptions = {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: !smtp.secure && auth !== undefined && !isLoopbackHost(smtp.host),
    ...(auth === undefined ? {} : { auth }),
    pool: false,
    connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  };
  return createTransport(config);
}
