/** `switchboard doctor` checks of the email channel: an IMAP login and mailbox, and an SMTP login. */
import { ImapFlow } from 'imapflow';
import type { DoctorCheck } from '../channel.ts';
import type { EmailEnv } from '../../src/config/env-types.ts';
import { createSmtpTransport } from './smtp-transport.ts';

const TIMEOUT_MS = 10_000;

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const extra = (error as { responseText?: unknown; response?: unknown }).responseText ?? (error as { response?: unknown }).response;
  return typeof extra === 'string' && extra !== '' && !error.message.includes(extra) ? `${error.message}: ${extra}` : error.message;
}

async function imapCheck(email: EmailEnv): Promise<DoctorCheck> {
  const { imap } = email;
  const where = `${imap.user} at ${imap.host}:${imap.port}, mailbox ${imap.mailbox}`;
  const client = new ImapFlow({
    host: imap.host, port: imap.port, secure: imap.secure, auth: { user: imap.user, pass: imap.password },
    logger: false, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const status = await client.status(imap.mailbox, { messages: true, unseen: true, uidValidity: true });
    await client.logout();
    const counts = status === false ? '' : `, ${status.messages ?? 0} messages (${status.unseen ?? 0} unread)`;
    return { name: 'email IMAP', status: 'ok', detail: `${where}: logged in${counts}` };
  } catch (error) {
    client.close();
    return { name: 'email IMAP', status: 'fail', detail: `${where}: ${reason(error)}` };
  }
}

async function smtpCheck(email: EmailEnv): Promise<DoctorCheck> {
  const { smtp } = email;
  const where = `${smtp.user ?? '(no login)'} at ${smtp.host}:${smtp.port}`;
  const transport = createSmtpTransport(smtp);
  try {
    await transport.verify();
    return { name: 'email SMTP', status: 'ok', detail: `${where}: connected${smtp.user === undefined ? '' : ' and logged in'}; sending as ${email.from}` };
  } catch (error) {
    return { name: 'email SMTP', status: 'fail', detail: `${where}: ${reason(error)}` };
  } finally {
    transport.close();
  }
}

/** Logs in to the IMAP mailbox and the SMTP server, without the service running. */
export async function emailDoctor(email: EmailEnv | undefined): Promise<readonly DoctorCheck[]> {
  if (email === undefined) return [{ name: 'channel email', status: 'off', detail: 'IMAP_URL and SMTP_URL unset' }];
  return Promise.all([imapCheck(email), smtpCheck(email)]);
}
