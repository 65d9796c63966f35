import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { fakeDnsResolver } from '../../test/support/dkim.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import type { EmailEvent } from './email-event.ts';
import { createEmailStore } from './email-store.ts';
import type { FetchedMail } from './imap-watch.ts';
import { createMailIntake, type MailIntakeOptions } from './intake.ts';
import { createMessageIds } from './message-ids.ts';

const BOT = 'bot@example.com';
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let redis: Redis;

beforeEach(() => {
  redis = new Redis(redisUrl());
});
afterEach(async () => { await redis.quit(); });

let nextUid = 1;
function fetched(headers: readonly string[], body = 'Hello there', extra: Partial<FetchedMail> = {}): FetchedMail {
  const source = Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}\r\n`);
  return { uidValidity: 7, uid: nextUid++, source, sizeBytes: source.length, tooLarge: false, ...extra };
}

/** An intake whose normalise records each event and whose enqueue is `enqueue`. */
function intake(enqueue: MailIntakeOptions['enqueue']) {
  const events: EmailEvent[] = [];
  const logger = { info: vi.fn(), warn: vi.fn() };
  const take = createMailIntake({
    store: createEmailStore({ redis, prefix: `${prefix()}:email` }),
    artifacts: { put: () => Promise.reject(new Error('no attachments expected')) },
    approvals: { get: () => Promise.resolve(undefined) },
    messageIds: createMessageIds({ secret: 'intake-test-secret', domain: 'example.com' }),
    botAddress: BOT,
    auth: { resolver: fakeDnsResolver({}) },
    normalise: (event) => {
      events.push(event as EmailEvent);
      return { id: `inj-${events.length}`, kind: 'message' } as unknown as Injection;
    },
    enqueue,
    logger,
    clock: () => new Date('2026-11-24T10:00:00Z'),
  });
  const messages = (): string[] => logger.info.mock.calls.map(([, message]) => String(message));
  return { take, events, messages };
}

describe('the mail intake', () => {
  it('leaves a mail whose enqueue failed untaken, so the read again takes it in, and only once', async () => {
    const enqueue = vi.fn<MailIntakeOptions['enqueue']>().mockRejectedValueOnce(new Error('queue down')).mockResolvedValue(undefined);
    const { take, events, messages } = intake(enqueue);
    const mail = fetched(['From: Ada <ada@example.com>', `To: ${BOT}`, 'Subject: Paris', 'Message-ID: <retry-1@example.com>']);

    await expect(take(mail)).rejects.toThrow('queue down');
    await take(mail);
    await take(mail);

    expect(enqueue).toHaveBeenCalledTimes(2);
    expect(events.map((event) => event.messageId)).toEqual(['<retry-1@example.com>', '<retry-1@example.com>']);
    expect(events[1]?.conversationKey).toBe(events[0]?.conversationKey);
    expect(messages()).toEqual(['email: taken in', 'email: already taken in; skipped']);
  });

  it('answers neither our own mail, nor automatic mail, nor mail without a From, and skips each when read again', async () => {
    const enqueue = vi.fn<MailIntakeOptions['enqueue']>().mockResolvedValue(undefined);
    const { take, messages } = intake(enqueue);
    const mails = [
      fetched([`From: ${BOT}`, 'To: ada@example.com', 'Subject: echo', 'Message-ID: <own@example.com>']),
      fetched(['From: ada@example.com', `To: ${BOT}`, 'Subject: Out of office', 'Auto-Submitted: auto-replied', 'Message-ID: <ooo@example.com>']),
      fetched([`To: ${BOT}`, 'Subject: nobody', 'Message-ID: <nofrom@example.com>']),
    ];
    for (const mail of mails) await take(mail);
    for (const mail of mails) await take(mail);

    expect(enqueue).not.toHaveBeenCalled();
    expect(messages()).toEqual([...mails.map(() => 'email: not answered'), ...mails.map(() => 'email: already taken in; skipped')]);
  });

  it('says when a mail was too large to read, in megabytes', async () => {
    const { take, events } = intake(() => Promise.resolve());
    await take(fetched(['From: ada@example.com', `To: ${BOT}`, 'Subject: big', 'Message-ID: <big@example.com>'], '', { sizeBytes: 26_214_400, tooLarge: true }));
    expect(events[0]?.text).toBe('(This message was 25.0 MB, over the size this service reads, so only its subject was read.)');
  });
});
