/**
 * A running switchboard with the email channel against real servers, for one test file: a private
 * Dovecot holding the bot's mailbox, an SMTP server that records what the bot sends, a fake model,
 * and DKIM keys for `example.com` served by a local DNS resolver. People's mail is composed with
 * nodemailer, signed, and delivered by appending it to the bot's mailbox over IMAP.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createEmailChannel, type EmailChannelOptions } from '../../channels/email/index.ts';
import { webChannel } from '../../channels/web/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service, type ServiceRole } from '../../service/create-service.ts';
import type { FakeScript } from '../fakes/fake-anthropic-types.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { createDkimKeys, dkimDnsRecords, fakeDnsResolver, signMail, type DkimKeys } from '../support/dkim.ts';
import { startDovecot, type Dovecot } from '../support/dovecot.ts';
import { appendMail } from '../support/imap-mail.ts';
import { uniquePrefix } from '../support/redis.ts';
import { startSmtpRecorder, type RecordedMail, type SmtpRecorder } from '../support/smtp-recorder.ts';
import { waitFor } from '../support/wait-for.ts';

/** The bot's address. */
export const BOT = 'bot@example.com';

/** A mail a person sends the bot. */
export interface PersonMail {
  readonly from: string;
  readonly subject: string;
  readonly text?: string;
  readonly html?: string;
  /** Default a new `<uuid@mail.example.com>`. */
  readonly messageId?: string;
  readonly inReplyTo?: string;
  readonly references?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly attachments?: readonly { readonly filename: string; readonly content: Buffer; readonly contentType: string }[];
  /** DKIM signing: `example.com`'s key (default), another key, or none. */
  readonly sign?: DkimKeys | 'none';
  /** Changes the signed message before it is delivered (to break its signature, add headers above it). */
  readonly tamper?: (raw: string) => string;
}

/** What a test file gets. */
export interface EmailHarness {
  readonly prefix: string;
  readonly fake: FakeAnthropic;
  readonly smtp: SmtpRecorder;
  readonly dovecot: Dovecot;
  /** `example.com`'s DKIM keys (published by the resolver). */
  readonly keys: DkimKeys;
  readonly redis: () => Redis;
  /** Composes, signs and delivers a mail; resolves to its Message-ID and UID. */
  send(mail: PersonMail): Promise<{ readonly messageId: string; readonly uid: number }>;
  /** Delivers raw bytes as they are. */
  deliver(raw: string | Buffer): Promise<{ readonly uid: number }>;
  /** Mail the bot sent to `address` so far. */
  mailsTo(address: string): RecordedMail[];
  /** Waits for a mail to `address` that `match` accepts; returns it. */
  waitForMail(address: string, match: (mail: RecordedMail) => boolean, what: string, timeoutMs?: number): Promise<RecordedMail>;
  /** Starts another process of the service (same Redis and prefix), closed after the file. */
  startProcess(role?: ServiceRole): Promise<Service>;
}

/** Options of {@link useEmailSwitchboard}. */
export interface EmailHarnessOptions {
  readonly appDir: string;
  readonly redisUrl: () => string;
  readonly script: FakeScript;
  readonly env?: Readonly<Record<string, string>>;
  readonly channel?: Omit<EmailChannelOptions, 'resolver'>;
  readonly approvalTtlMs?: number;
}

async function compose(mail: PersonMail): Promise<string> {
  const composer = new MailComposer({
    from: mail.from,
    to: BOT,
    subject: mail.subject,
    messageId: mail.messageId ?? `<${randomUUID()}@mail.example.com>`,
    date: new Date(),
    ...(mail.text === undefined ? {} : { text: mail.text }),
    ...(mail.html === undefined ? {} : { html: mail.html }),
    ...(mail.inReplyTo === undefined ? {} : { inReplyTo: mail.inReplyTo }),
    ...(mail.references === undefined ? {} : { references: [...mail.references] }),
    ...(mail.headers === undefined ? {} : { headers: { ...mail.headers } }),
    ...(mail.attachments === undefined ? {} : { attachments: mail.attachments.map((attachment) => ({ ...attachment })) }),
  });
  const built = await new Promise<Buffer>((resolve, reject) => {
    composer.compile().build((error, message) => { if (error === null) resolve(message); else reject(error); });
  });
  return built.toString('utf8');
}

/**
 * Starts everything before the file's tests and stops it after. The service logs nothing, unless
 * `EMAIL_TEST_LOG=<file>` is set when running the tests: then its debug log goes to that file.
 */
export function useEmailSwitchboard(options: EmailHarnessOptions): () => EmailHarness {
  let harness: EmailHarness | undefined;
  const services: Service[] = [];
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    const keys = createDkimKeys('example.com');
    const resolver = fakeDnsResolver(dkimDnsRecords(keys));
    const dovecot = await startDovecot({ users: [{ user: BOT, password: 'bot-password' }] });
    closers.push(() => dovecot.dispose());
    const smtp = await startSmtpRecorder();
    closers.push(() => smtp.close());
    const fake = await startFakeAnthropic();
    closers.push(() => fake.close());
    fake.respondWith(options.script);
    const redis = new Redis(options.redisUrl());
    closers.push(() => redis.quit());
    const prefix = uniquePrefix('email');
    const mailboxUrl = dovecot.url(BOT);
    const env = loadEnv(
      { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, SWITCHBOARD_APP: options.appDir, LOG_LEVEL: 'silent', IMAP_URL: mailboxUrl, SMTP_URL: smtp.url, EMAIL_FROM: `Concierge <${BOT}>`, ...options.env },
      { appDir: options.appDir },
    );
    const channel = createEmailChannel({ resolver, watch: { backoff: { baseDelayMs: 100, maxDelayMs: 1000 } }, ...options.channel });
    const startProcess = async (role: ServiceRole = 'all'): Promise<Service> => {
      const service = await startService({
        env, role, redisUrl: options.redisUrl(), logger: process.env['EMAIL_TEST_LOG'] === undefined ? pino({ level: 'silent' }) : pino({ level: 'debug' }, pino.destination(process.env['EMAIL_TEST_LOG'])), prefix, port: 0,
        sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [webChannel, channel],
        ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
      });
      services.push(service);
      return service;
    };
    await startProcess();
    const mailsTo = (address: string): RecordedMail[] => smtp.messages().filter((mail) => mail.envelope.rcptTo.includes(address));
    harness = {
      prefix, fake, smtp, dovecot, keys,
      redis: () => redis,
      async send(mail) {
        const messageId = mail.messageId ?? `<${randomUUID()}@mail.example.com>`;
        const composed = await compose({ ...mail, messageId });
        const signed = mail.sign === 'none' ? composed : (await signMail(composed, mail.sign ?? keys)).toString('utf8');
        const { uid } = await appendMail(mailboxUrl, mail.tamper === undefined ? signed : mail.tamper(signed));
        return { messageId, uid };
      },
      deliver: (raw) => appendMail(mailboxUrl, raw),
      mailsTo,
      async waitForMail(address, match, what, timeoutMs = 20_000) {
        await waitFor(() => mailsTo(address).some(match), what, timeoutMs);
        const found = mailsTo(address).find(match);
        if (found === undefined) throw new Error(what);
        return found;
      },
      startProcess,
    };
  });

  afterAll(async () => {
    for (const service of services.reverse()) await service.close();
    for (const close of closers.reverse()) await close();
  });

  return () => {
    if (harness === undefined) throw new Error('useEmailSwitchboard(): only available inside tests');
    return harness;
  };
}

/** The parsed header `name` of a recorded mail, as a string (`''` when absent). */
export function headerOf(mail: RecordedMail, name: string): string {
  const value = mail.parsed.headers.get(name);
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}
