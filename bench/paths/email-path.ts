/**
 * The email path: a DKIM-signed mail delivered into the bot's mailbox on a private Dovecot (IMAP
 * APPEND, as the tests deliver mail), seen by the channel's IDLE listener, to the mail the bot
 * sends to a recording SMTP server. Each sender is a different address of `example.com`, whose
 * DKIM key a local resolver serves. The channel sends at most 30 mails a minute (no setting
 * changes it), so the path sends 28 messages within that minute, at 2 a second: slower than the
 * other paths, so that its warm-up outlasts the time a mail takes to be answered (the window then
 * sees as many answers as it sees sends).
 */
import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { createEmailChannel } from '../../channels/email/index.ts';
import { createDkimKeys, dkimDnsRecords, fakeDnsResolver, signMail } from '../../test/support/dkim.ts';
import { startDovecot } from '../../test/support/dovecot.ts';
import { appendMail } from '../../test/support/imap-mail.ts';
import { startSmtpRecorder } from '../../test/support/smtp-recorder.ts';
import { keyIn, type ChannelPath } from './channel-path.ts';

const BOT = 'bot@example.com';
/** How often the recorder's mails are looked at, ms. */
const POLL_MS = 20;

/** A plain-text mail from `from` to the bot, as a mail client composes it. */
async function compose(from: string, text: string): Promise<Buffer> {
  const composer = new MailComposer({ from, to: BOT, subject: `bench ${text}`, text, messageId: `<${randomUUID()}@mail.example.com>`, date: new Date() });
  return new Promise<Buffer>((resolve, reject) => {
    composer.compile().build((error, message) => {
      if (error === null) resolve(message);
      else reject(error);
    });
  });
}

/** The email path. */
export const emailPath: ChannelPath = {
  name: 'Email (IMAP -> SMTP)',
  label: 'email',
  note: 'email: provider calls are the mails the SMTP recorder received (IMAP reads of the mailbox are not counted); at most 30 mails a minute (the channel\'s own limit, fixed), so 28 messages at 2 msg/s',
  load: { rate: 2, warmUp: 6, measured: 16, tail: 6 },
  async start(context) {
    const keys = createDkimKeys('example.com');
    const dovecot = await startDovecot({ users: [{ user: BOT, password: 'bench-password' }] });
    const smtp = await startSmtpRecorder();
    const mailbox = dovecot.url(BOT);
    const channel = createEmailChannel({ resolver: fakeDnsResolver(dkimDnsRecords(keys)) });
    const service = await context.startService({ IMAP_URL: mailbox, SMTP_URL: smtp.url, EMAIL_FROM: `Bench <${BOT}>` }, [channel]);
    let listener: ((key: string) => void) | undefined;
    let seen = 0;
    const poll = setInterval(() => {
      const mails = smtp.messages();
      for (; seen < mails.length; seen += 1) {
        const key = keyIn(mails[seen]?.parsed.text ?? '');
        if (key !== undefined) listener?.(key);
      }
    }, POLL_MS);
    return {
      async send(key, index) {
        const signed = await signMail(await compose(`person${index}@example.com`, key), keys);
        await appendMail(mailbox, signed);
      },
      listen(next) {
        listener = next;
      },
      providerCalls: () => smtp.messages().length,
      async close() {
        clearInterval(poll);
        await service.close();
        await smtp.close();
        await dovecot.dispose();
      },
    };
  },
};
