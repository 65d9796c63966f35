/**
 * The IMAP watcher against a real Dovecot when taking a mail fails (Redis down at the enqueue, a
 * crash mid-intake): the cursor does not move, the watcher reconnects, and the mail is taken on
 * the next try — nothing is lost, and a mail taken once is not taken again.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchMailbox, type FetchedMail } from '../../channels/email/imap-watch.ts';
import { createMailboxCursor } from '../../channels/email/mailbox-cursor.ts';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { useDovecot } from '../support/dovecot.ts';
import { appendMail } from '../support/imap-mail.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';

const BOT = 'bot@example.com';
const dovecot = useDovecot();
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;

beforeEach(() => { redis = new Redis(redisUrl()); });
afterEach(async () => { await redis.quit(); });

const mail = (subject: string): string => [`From: grace@example.com`, `To: ${BOT}`, `Subject: ${subject}`, `Message-ID: <${subject}@mail.example.com>`, '', 'Hello.', ''].join('\r\n');

describe('the IMAP watcher when taking a mail fails', () => {
  it('keeps the cursor, reconnects and takes the mail again; each mail is taken once', async () => {
    const server = dovecot();
    const first = await appendMail(server.url(BOT), mail('first'));
    const second = await appendMail(server.url(BOT), mail('second'));
    const lease = createLease({ redis, key: `${prefix()}:lease`, ttlMs: 2000 });
    const fence = await lease.acquire();
    const cursor = createMailboxCursor(redis, `${prefix()}:cursor`);
    const taken: number[] = [];
    let failures = 0;
    const take = (fetched: FetchedMail): Promise<void> => {
      if (fetched.uid === second.uid && failures < 2) {
        failures += 1;
        return Promise.reject(new Error('Redis refused the enqueue'));
      }
      taken.push(fetched.uid);
      return Promise.resolve();
    };
    const running = watchMailbox({
      imap: { host: server.host, port: server.port, secure: false, user: BOT, password: 'bot-password', mailbox: 'INBOX' },
      cursor, fence, take, logger: pino({ level: 'silent' }), backoff: { baseDelayMs: 50, maxDelayMs: 200 },
    });
    try {
      await waitFor(() => taken.includes(second.uid), 'the failed mail taken on a later try');
      expect(failures).toBe(2);
      expect(taken).toEqual([first.uid, second.uid]);
      // The cursor moves after the mail is taken and flagged \Seen: wait for it, do not race it.
      await waitFor(async () => (await cursor.load())?.lastUid === second.uid, 'the cursor past the failed mail');
      expect(await cursor.load()).toEqual({ uidValidity: second.uidValidity, lastUid: second.uid });
      const third = await appendMail(server.url(BOT), mail('third'));
      await waitFor(() => taken.includes(third.uid), 'new mail after the failures');
      expect(taken).toEqual([first.uid, second.uid, third.uid]);
    } finally {
      await running.stop();
      await lease.release();
    }
  });
});
