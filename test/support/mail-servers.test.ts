import { ImapFlow } from 'imapflow';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DOVECOT_USER, startDovecot, useDovecot } from './dovecot.ts';
import { appendMail, mailboxUids, resetMailbox, uidValidityOf } from './imap-mail.ts';

const BOT = DEFAULT_DOVECOT_USER.user;
const ODD = { user: 'odd+name@example.com', password: 'p@ss w/rd?#%' };

const dovecot = useDovecot({ users: [DEFAULT_DOVECOT_USER, ODD] });

function message(subject: string): string {
  return [
    'From: Ada <ada@example.org>',
    `To: ${BOT}`,
    `Subject: ${subject}`,
    `Message-ID: <${subject.replace(/\W+/g, '-')}@example.org>`,
    'Date: Mon, 3 Mar 2025 10:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Body of ${subject}.`,
    '',
  ].join('\r\n');
}

/** Message sources by UID, fetched with imapflow directly (not through the helpers under test). */
async function sourcesByUid(url: string, uids: readonly number[]): Promise<Map<number, string>> {
  const target = new URL(url);
  const client = new ImapFlow({
    host: target.hostname,
    port: Number(target.port),
    secure: false,
    doSTARTTLS: false,
    auth: { user: decodeURIComponent(target.username), pass: decodeURIComponent(target.password) },
    logger: false,
  });
  await client.connect();
  try {
    const lock = await client.getMailboxLock(decodeURIComponent(target.pathname.slice(1)), { readOnly: true });
    try {
      const messages = await client.fetchAll(uids.join(','), { uid: true, source: true }, { uid: true });
      return new Map(messages.map((found) => [found.uid, found.source?.toString('utf8') ?? '']));
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

describe('a private Dovecot', () => {
  it('stores appended mail and gives it back by UID', async () => {
    const url = dovecot().url(BOT);
    expect(url).toBe(`imap://bot%40example.com:bot-password@127.0.0.1:${dovecot().port}/INBOX`);

    const first = await appendMail(url, message('first'));
    const second = await appendMail(url, message('second'), { flags: ['\\Seen'] });

    expect(second.uidValidity).toBe(first.uidValidity);
    expect(second.uid).toBeGreaterThan(first.uid);
    expect(await mailboxUids(url)).toEqual([
      { uid: first.uid, seen: false },
      { uid: second.uid, seen: true },
    ]);
    const sources = await sourcesByUid(url, [first.uid, second.uid]);
    expect(sources.get(first.uid)).toBe(message('first'));
    expect(sources.get(second.uid)).toBe(message('second'));
  });

  it('keeps mail, UIDs and UIDVALIDITY across a restart on the same port', async () => {
    const url = dovecot().url(BOT, 'Restart');
    const stored = await appendMail(url, message('kept'));
    const before = await mailboxUids(url);

    await dovecot().restart();

    expect(dovecot().url(BOT, 'Restart')).toBe(url);
    expect(await mailboxUids(url)).toEqual(before);
    expect(await uidValidityOf(url)).toBe(stored.uidValidity);
    const next = await appendMail(url, message('after restart'));
    expect(next).toEqual({ uid: stored.uid + 1, uidValidity: stored.uidValidity });
  });

  it('gives a mailbox a new UIDVALIDITY on reset, keeping its messages', async () => {
    const url = dovecot().url(BOT, 'Reset');
    const stored = await appendMail(url, message('before reset'));

    const uidValidity = await resetMailbox(dovecot(), BOT, 'Reset');

    expect(uidValidity).not.toBe(stored.uidValidity);
    expect(await uidValidityOf(url)).toBe(uidValidity);
    expect(await mailboxUids(url)).toEqual([{ uid: stored.uid, seen: false }]);
    expect((await appendMail(url, message('after reset'))).uidValidity).toBe(uidValidity);
  });

  it('comes back with its mail after a crash', async () => {
    const url = dovecot().url(BOT, 'Crash');
    const stored = await appendMail(url, message('survives a crash'));

    await dovecot().kill();
    expect(dovecot().isRunning()).toBe(false);
    await expect(mailboxUids(url)).rejects.toThrow();

    await dovecot().start();
    expect(await mailboxUids(url)).toEqual([{ uid: stored.uid, seen: false }]);
    expect(await uidValidityOf(url)).toBe(stored.uidValidity);
  });

  it('percent-encodes user, password and mailbox in its URLs', async () => {
    const url = dovecot().url(ODD.user, 'Sent Items');
    expect(url).toBe(`imap://odd%2Bname%40example.com:p%40ss%20w%2Frd%3F%23%25@127.0.0.1:${dovecot().port}/Sent%20Items`);
    const stored = await appendMail(url, message('odd account'));
    expect(await mailboxUids(url)).toEqual([{ uid: stored.uid, seen: false }]);
    expect(() => dovecot().url('nobody@example.com')).toThrow(/no account/);
  });
});

describe('startDovecot', () => {
  it('names the package to install when the binary is missing', async () => {
    await expect(startDovecot({ binary: '/nonexistent/dovecot' })).rejects.toThrow(/apt-get install dovecot-imapd/);
  });
});
