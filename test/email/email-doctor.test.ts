/**
 * `switchboard doctor`'s email checks against real servers: a private Dovecot and the SMTP
 * recorder (with a required login). Proves that `emailDoctor` reports both `ok` with the right
 * credentials (naming the mailbox, its message counts and the From address); IMAP `fail` with a
 * wrong password or a missing mailbox, saying why and never quoting a password; SMTP `fail` with a
 * wrong password and when nothing listens any more; and `off` when email is not configured. Then
 * that the CLI path (`runDoctor` with the registered channel modules) prints those email lines and
 * exits non-zero when one of them fails, as the README's `npx switchboard doctor` row says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailDoctor } from '../../channels/email/doctor.ts';
import type { DoctorCheck } from '../../channels/channel.ts';
import { runDoctor } from '../../service/cli/doctor.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { startDovecot, type Dovecot } from '../support/dovecot.ts';
import { appendMail } from '../support/imap-mail.ts';
import { useRedis } from '../support/redis.ts';
import { startSmtpRecorder, type SmtpRecorder } from '../support/smtp-recorder.ts';

const BOT = 'bot@example.com';
const IMAP_PASSWORD = 'imap-secret-7Qx';
const SMTP_USER = 'relay-user';
const SMTP_PASSWORD = 'smtp-secret-9Kz';
const FROM = `Concierge <${BOT}>`;
const appDir = process.cwd();

const redisUrl = useRedis();
let dovecot: Dovecot;
let smtp: SmtpRecorder;
let fake: FakeAnthropic;

beforeAll(async () => {
  dovecot = await startDovecot({ users: [{ user: BOT, password: IMAP_PASSWORD }] });
  smtp = await startSmtpRecorder({ user: SMTP_USER, password: SMTP_PASSWORD });
  fake = await startFakeAnthropic();
  const mail = (subject: string): string => `From: ada@example.com\r\nTo: ${BOT}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@example.com>\r\n\r\nHello\r\n`;
  await appendMail(dovecot.url(BOT), mail('one'), { flags: ['\\Seen'] });
  await appendMail(dovecot.url(BOT), mail('two'));
  await appendMail(dovecot.url(BOT), mail('three'));
});

afterAll(async () => {
  await Promise.all([dovecot.dispose(), smtp.close(), fake.close()]);
});

/** `imap://bot%40example.com:<password>@127.0.0.1:<port>/INBOX`. */
function imapUrl(password: string): string {
  return `imap://${encodeURIComponent(BOT)}:${encodeURIComponent(password)}@${dovecot.host}:${String(dovecot.port)}/INBOX`;
}

function smtpUrl(port: number, password: string): string {
  return `smtp://${encodeURIComponent(SMTP_USER)}:${encodeURIComponent(password)}@127.0.0.1:${String(port)}`;
}

function env(email: { imap?: string; smtp?: string } = {}): SwitchboardEnv {
  return loadEnv({
    REDIS_URL: redisUrl(), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent',
    ...(email.imap === undefined ? {} : { IMAP_URL: email.imap, EMAIL_FROM: FROM }),
    ...(email.smtp === undefined ? {} : { SMTP_URL: email.smtp }),
  }, { appDir });
}

function check(checks: readonly DoctorCheck[], name: string): DoctorCheck {
  const found = checks.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no "${name}" check in ${JSON.stringify(checks)}`);
  return found;
}

describe('email doctor checks against real servers', () => {
  it('passes both checks with the right credentials, naming the mailbox, its counts and the From address', async () => {
    const checks = await emailDoctor(env({ imap: imapUrl(IMAP_PASSWORD), smtp: smtpUrl(smtp.port, SMTP_PASSWORD) }).email);
    expect(checks.map((entry) => entry.name)).toEqual(['email IMAP', 'email SMTP']);
    expect(check(checks, 'email IMAP')).toEqual({
      name: 'email IMAP', status: 'ok',
      detail: `${BOT} at 127.0.0.1:${String(dovecot.port)}, mailbox INBOX: logged in, 3 messages (2 unread)`,
    });
    expect(check(checks, 'email SMTP')).toEqual({
      name: 'email SMTP', status: 'ok',
      detail: `${SMTP_USER} at 127.0.0.1:${String(smtp.port)}: connected and logged in; sending as ${FROM}`,
    });
    expect(smtp.messages()).toHaveLength(0);
  });

  it('fails SMTP with a wrong password, saying why without quoting it', async () => {
    const wrong = 'wrong-pass-8Jd';
    const checks = await emailDoctor(env({ imap: imapUrl(IMAP_PASSWORD), smtp: smtpUrl(smtp.port, wrong) }).email);
    const smtpCheck = check(checks, 'email SMTP');
    expect(smtpCheck.status).toBe('fail');
    expect(smtpCheck.detail).toMatch(new RegExp(`^${SMTP_USER} at 127\\.0\\.0\\.1:${String(smtp.port)}: .*535`));
    for (const secret of [wrong, IMAP_PASSWORD, SMTP_PASSWORD]) expect(smtpCheck.detail).not.toContain(secret);
    expect(check(checks, 'email IMAP').status).toBe('ok');
  });

  it('fails SMTP when the server is closed', async () => {
    const closed = await startSmtpRecorder({ user: SMTP_USER, password: SMTP_PASSWORD });
    await closed.close();
    const checks = await emailDoctor(env({ imap: imapUrl(IMAP_PASSWORD), smtp: smtpUrl(closed.port, SMTP_PASSWORD) }).email);
    const smtpCheck = check(checks, 'email SMTP');
    expect(smtpCheck.status).toBe('fail');
    expect(smtpCheck.detail).toMatch(new RegExp(`^${SMTP_USER} at 127\\.0\\.0\\.1:${String(closed.port)}: .*ECONNREFUSED`));
    expect(smtpCheck.detail).not.toContain(SMTP_PASSWORD);
  });

  it('is off when email is not configured', async () => {
    const unconfigured = env();
    expect(unconfigured.email).toBeUndefined();
    expect(await emailDoctor(unconfigured.email)).toEqual([{ name: 'channel email', status: 'off', detail: 'IMAP_URL and SMTP_URL unset' }]);
  });

  it('fails IMAP when the mailbox does not exist, after logging in', async () => {
    const checks = await emailDoctor(env({ imap: imapUrl(IMAP_PASSWORD).replace(/\/INBOX$/, '/Bookings'), smtp: smtpUrl(smtp.port, SMTP_PASSWORD) }).email);
    expect(check(checks, 'email IMAP')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/, mailbox Bookings: .*Bookings/) as unknown });
    expect(check(checks, 'email SMTP').status).toBe('ok');
  });
});

describe('switchboard doctor with email configured', () => {
  async function doctor(email: { imap: string; smtp: string }): Promise<{ code: number; text: string }> {
    let text = '';
    const code = await runDoctor(env(email), { write: (chunk: string) => (text += chunk) });
    return { code, text };
  }

  it('prints the email lines and passes when both servers accept the logins', async () => {
    const { code, text } = await doctor({ imap: imapUrl(IMAP_PASSWORD), smtp: smtpUrl(smtp.port, SMTP_PASSWORD) });
    expect(text).toMatch(/^email IMAP\s+OK\s+bot@example\.com at 127\.0\.0\.1:\d+, mailbox INBOX: logged in, 3 messages \(2 unread\)$/m);
    expect(text).toMatch(/^email SMTP\s+OK\s+relay-user at 127\.0\.0\.1:\d+: connected and logged in; sending as Concierge <bot@example\.com>$/m);
    expect(text).not.toMatch(/^channel email/m);
    expect(text).toContain('all checks passed');
    expect(code).toBe(0);
  });

  it('exits non-zero and prints the failing email line when the SMTP server is unreachable', async () => {
    const closed = await startSmtpRecorder();
    await closed.close();
    const { code, text } = await doctor({ imap: imapUrl(IMAP_PASSWORD), smtp: `smtp://127.0.0.1:${String(closed.port)}` });
    expect(text).toMatch(/^email IMAP\s+OK/m);
    expect(text).toMatch(new RegExp(`^email SMTP\\s+FAIL\\s+\\(no login\\) at 127\\.0\\.0\\.1:${String(closed.port)}: .*ECONNREFUSED`, 'm'));
    expect(text).toContain('1 check(s) failed');
    expect(code).toBe(1);
  });
});

// Last in the file: after a failed login Dovecot delays further logins from the same address (its
// auth penalty), which would slow every check that follows.
describe('email doctor checks after a refused IMAP login', () => {
  it('fails IMAP with a wrong password, saying why without quoting any password', async () => {
    const wrong = 'wrong-pass-3Vb';
    const checks = await emailDoctor(env({ imap: imapUrl(wrong), smtp: smtpUrl(smtp.port, SMTP_PASSWORD) }).email);
    const imap = check(checks, 'email IMAP');
    expect(imap.status).toBe('fail');
    expect(imap.detail).toMatch(new RegExp(`^${BOT} at 127\\.0\\.0\\.1:${String(dovecot.port)}, mailbox INBOX: `));
    expect(imap.detail).toMatch(/authenticat/i);
    for (const secret of [wrong, IMAP_PASSWORD, SMTP_PASSWORD]) expect(imap.detail).not.toContain(secret);
    expect(check(checks, 'email SMTP').status).toBe('ok');
  });
});
