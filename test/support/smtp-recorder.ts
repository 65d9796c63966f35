import { SMTPServer, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo, Server } from 'node:net';
import { afterEach } from 'vitest';
import { useStarted } from './use-started.ts';
import { waitFor } from './wait-for.ts';

/** One mail the recorder accepted. */
export interface RecordedMail {
  /** The SMTP envelope: `MAIL FROM` and every `RCPT TO` address. */
  readonly envelope: { readonly mailFrom: string; readonly rcptTo: readonly string[] };
  /** The user the client logged in as, when it did. */
  readonly user?: string;
  /** The message exactly as received after `DATA`. */
  readonly raw: Buffer;
  /** The message parsed by mailparser (`simpleParser`). */
  readonly parsed: ParsedMail;
}

/** Options of {@link startSmtpRecorder}. */
export interface SmtpRecorderOptions {
  /** With `password`: the only login accepted, and logging in is required. Default: no login (AUTH off). */
  readonly user?: string;
  /** The password of `user`. Default empty. */
  readonly password?: string;
}

/** Where the next failure is answered: at `RCPT TO` (before any data) or at the end of `DATA`. */
export type FailureStage = 'rcpt' | 'data';

/** A running local SMTP server that records what it is sent. */
export interface SmtpRecorder {
  /** `smtp://user:pass@127.0.0.1:<port>` (without credentials when no user was set). */
  readonly url: string;
  /** Always `127.0.0.1`. */
  readonly host: string;
  /** The TCP port the server listens on (chosen by the system). */
  readonly port: number;
  /** Every mail accepted so far, oldest first. */
  messages(): readonly RecordedMail[];
  /** Waits until at least `count` mails were accepted (default timeout 5000 ms) and returns them all. */
  waitForMessages(count: number, timeoutMs?: number): Promise<readonly RecordedMail[]>;
  /**
   * Answers the next `RCPT TO` or `DATA` (default `data`) with the SMTP reply `code` and
   * `message`, e.g. `failNext(451, 'Try again later')`. Failures queue up, one per command.
   */
  failNext(code: number, message: string, stage?: FailureStage): void;
  /** Forgets recorded mails and queued failures. */
  clear(): void;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function envelopeOf(session: SMTPServerSession): RecordedMail['envelope'] {
  const { mailFrom, rcptTo } = session.envelope;
  return { mailFrom: mailFrom === false ? '' : mailFrom.address, rcptTo: rcptTo.map((rcpt) => rcpt.address) };
}

/**
 * Starts an SMTP server on 127.0.0.1, on a free port, without TLS (no STARTTLS), that records
 * every mail. With `user` and `password`, clients must log in (PLAIN or LOGIN over plain text).
 *
 * @example
 * const smtp = await startSmtpRecorder();
 * smtp.failNext(550, 'No such mailbox', 'rcpt');
 * const [mail] = await smtp.waitForMessages(1);
 */
export async function startSmtpRecorder(options: SmtpRecorderOptions = {}): Promise<SmtpRecorder> {
  const recorded: RecordedMail[] = [];
  const failures: { code: number; message: string; stage: FailureStage }[] = [];
  const takeFailure = (stage: FailureStage): Error | undefined => {
    const index = failures.findIndex((failure) => failure.stage === stage);
    const [failure] = index < 0 ? [] : failures.splice(index, 1);
    return failure === undefined ? undefined : smtpError(failure.code, failure.message);
  };
  const login = options.user === undefined ? undefined : { user: options.user, password: options.password ?? '' };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: login === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    authOptional: login === undefined,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    closeTimeout: 1000,
    onAuth(auth: SMTPServerAuthentication, _session, callback) {
      if (login !== undefined && auth.username === login.user && auth.password === login.password) callback(null, { user: login.user });
      else callback(smtpError(535, 'Authentication failed'));
    },
    onRcptTo(_address, _session, callback) {
      callback(takeFailure('rcpt') ?? null);
    },
    onData(stream, session, callback) {
      readAll(stream)
        .then(async (raw) => {
          const failure = takeFailure('data');
          if (failure !== undefined) return failure;
          const user = typeof session.user === 'string' ? { user: session.user } : {};
          recorded.push({ envelope: envelopeOf(session), ...user, raw, parsed: await simpleParser(raw) });
          return null;
        })
        .then(callback, (error: unknown) => {
          callback(error instanceof Error ? error : new Error(String(error)));
        });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = (server.server as Server).address() as AddressInfo;
  const credentials = login === undefined ? '' : `${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@`;
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    messages: () => [...recorded],
    async waitForMessages(count, timeoutMs = 5000) {
      await waitFor(() => recorded.length >= count, `${count} mail(s) arrived (got ${recorded.length})`, timeoutMs);
      return [...recorded];
    },
    failNext(code, message, stage = 'data') {
      failures.push({ code, message, stage });
    },
    clear() {
      recorded.length = 0;
      failures.length = 0;
    },
    close: () => new Promise<void>((resolve) => { server.close(resolve); }),
  };
}

/**
 * Gives a test file one {@link SmtpRecorder}: started before the file's tests, cleared after each
 * test, closed after all of them.
 *
 * @returns A getter for the recorder; it throws when called before `beforeAll` has run.
 *
 * @example
 * const smtp = useSmtpRecorder();
 * it('sends', async () => { await send(smtp().port); expect(await smtp().waitForMessages(1)).toHaveLength(1); });
 */
export function useSmtpRecorder(options: SmtpRecorderOptions = {}): () => SmtpRecorder {
  const recorder = useStarted(() => startSmtpRecorder(options), (started) => started.close(), { name: 'useSmtpRecorder()' });
  afterEach(() => {
    recorder().clear();
  });
  return recorder;
}
