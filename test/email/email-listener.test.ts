/**
 * The email listener against a real Dovecot: new mail picked up through IDLE; the IMAP server
 * killed and restarted mid-run and a second process running, with every mail answered exactly
 * once; a UIDVALIDITY change re-reads the mailbox without answering anything twice; loop guards
 * and the per-sender cap; attachments in and out; malformed MIME, a 25 MB attachment and a mail
 * with no text part handled with a clear note, nothing lost and the listener still running.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writeApp } from '../../src/runtime/app/app-test-fixtures.ts';
import type { FakeScript } from '../fakes/fake-anthropic-types.ts';
import { resetMailbox } from '../support/imap-mail.ts';
import { useRedis } from '../support/redis.ts';
import { lastUserText, part, reply, respond, unmarked } from '../support/scenario-model.ts';
import type { RecordedMail } from '../support/smtp-recorder.ts';
import { waitFor } from '../support/wait-for.ts';
import { BOT, useEmailSwitchboard } from './email-harness.ts';

const appDir = writeApp({
  // Mail comes from addresses nobody configured: anyone may write by email here (its default is pairing).
  'switchboard.yaml': 'app: echo\nentryActor: main\nchannels:\n  email:\n    senders: open\n',
  'actors/main.yaml': 'name: main\nsystem: Echo what you are told.\ntools: []\n',
});

/** The newest user text of a request. */
/** Answers `Got: <first line>` (of the mail, inside its marks of outside content); sends back an attachment the person sent (`artifact <id>` in the text). */
const echo: FakeScript = (request) => {
  const text = unmarked(lastUserText(request));
  const artifact = /\[attached: ([^,]+), ([^,]+), [^,]+, artifact ([A-Za-z0-9_-]{22})\]/.exec(text);
  const parts = [part('response', `Got: ${text.split('\n')[0] ?? ''}`)];
  if (artifact !== null) parts.push({ data: { artifactId: artifact[3] ?? '', name: `copy of ${artifact[1] ?? ''}`, mimeType: artifact[2] ?? '' }, metadata: { partType: 'artifact' } });
  return reply(respond(parts, 'complete'));
};

const redisUrl = useRedis();
const sb = useEmailSwitchboard({ appDir, redisUrl, script: echo, channel: { rateCap: { max: 3, windowMs: 3_600_000 } } });

function answersTo(messageId: string): RecordedMail[] {
  return sb().smtp.messages().filter((mail) => mail.parsed.inReplyTo === messageId);
}

async function answered(messageIds: readonly string[], what: string, timeoutMs = 30_000): Promise<void> {
  await waitFor(() => messageIds.every((id) => answersTo(id).length > 0), what, timeoutMs);
}

/** Waits until the listener has caught up with everything delivered, by sending one more mail and waiting for its answer. */
async function drain(from: string): Promise<void> {
  const { messageId } = await sb().send({ from, subject: 'marker', text: 'marker' });
  await answered([messageId], 'the marker mail');
}

const modelTexts = (): string[] => sb().fake.messageRequests.map((request) => unmarked(lastUserText(request)));

describe('the email listener', () => {
  it('picks up new mail through IDLE and answers it in its thread', async () => {
    const started = Date.now();
    const { messageId } = await sb().send({ from: 'idle@example.com', subject: 'Hello', text: 'Are you there?' });
    await answered([messageId], 'the answer');
    const [answer] = answersTo(messageId);
    console.log(`email: mail appended to answer received in ${Date.now() - started} ms`);
    expect(answer?.parsed.text).toContain('Got: Are you there?');
    expect(answer?.parsed.subject).toBe('Re: Hello');
  });

  it('answers every mail exactly once across an IMAP server crash and a second process', async () => {
    await sb().startProcess('worker');
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) ids.push((await sb().send({ from: `crash${index}@example.com`, subject: `before ${index}`, text: `before ${index}` })).messageId);
    await sb().dovecot.kill();
    await sb().dovecot.start();
    for (let index = 0; index < 4; index += 1) ids.push((await sb().send({ from: `crash${index}@example.com`, subject: `after ${index}`, text: `after ${index}` })).messageId);
    await sb().dovecot.restart();
    for (let index = 0; index < 2; index += 1) ids.push((await sb().send({ from: `crash${index}@example.com`, subject: `last ${index}`, text: `last ${index}` })).messageId);
    await answered(ids, 'all ten answers', 60_000);
    await drain('crash-marker@example.com');
    expect(ids.map((id) => answersTo(id).length)).toEqual(ids.map(() => 1));
  });

  it('after a UIDVALIDITY change, answers new mail and nothing it answered before', async () => {
    const { messageId: old } = await sb().send({ from: 'uv@example.com', subject: 'old', text: 'old mail' });
    await answered([old], 'the old mail');
    await resetMailbox(sb().dovecot, BOT);
    // The same mail delivered again, unread, under the new UIDVALIDITY: its Message-ID was taken in already.
    await sb().send({ from: 'uv@example.com', subject: 'old', text: 'old mail', messageId: old });
    const { messageId: fresh } = await sb().send({ from: 'uv@example.com', subject: 'new', text: 'new mail' });
    await answered([fresh], 'the new mail after the UIDVALIDITY change');
    await drain('uv-marker@example.com');
    expect(answersTo(old)).toHaveLength(1);
    expect(answersTo(fresh)).toHaveLength(1);
  });

  it('never answers automatic mail, and caps a chatty sender', async () => {
    const automatic = [
      { from: 'ooo@example.com', headers: { 'Auto-Submitted': 'auto-replied' } },
      { from: 'news@example.com', headers: { Precedence: 'bulk' } },
      { from: 'list@example.com', headers: { 'List-Id': '<trips.lists.example.com>' } },
      { from: 'MAILER-DAEMON@example.com', headers: {} },
      { from: 'bounce-robot@example.com', headers: { 'Return-Path': '<>' } },
      { from: 'exchange@example.com', headers: { 'X-Auto-Response-Suppress': 'All' } },
    ];
    const ids = [];
    for (const [index, mail] of automatic.entries()) ids.push((await sb().send({ ...mail, subject: 'Automatic reply', text: `automatic ${index}` })).messageId);
    const chatty = [];
    for (let index = 0; index < 5; index += 1) chatty.push((await sb().send({ from: 'chatty@example.com', subject: `chat ${index}`, text: `chat ${index}` })).messageId);
    await drain('guards-marker@example.com');
    expect(ids.map((id) => answersTo(id).length)).toEqual(ids.map(() => 0));
    expect(modelTexts().some((text) => text.startsWith('automatic'))).toBe(false);
    expect(chatty.map((id) => answersTo(id).length)).toEqual([1, 1, 1, 0, 0]);
  });

  it('keeps an attachment as an artifact and can send it back, byte for byte', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(40_000)]);
    const { messageId } = await sb().send({ from: 'files@example.com', subject: 'My ticket', text: 'Here is my ticket.', attachments: [{ filename: 'ticket.pdf', content: pdf, contentType: 'application/pdf' }] });
    await answered([messageId], 'the answer with the attachment');
    const [answer] = answersTo(messageId);
    const attachment = answer?.parsed.attachments.find((file) => file.filename === 'copy of ticket.pdf');
    expect(attachment?.contentType).toBe('application/pdf');
    expect(attachment?.content.equals(pdf)).toBe(true);
    expect(modelTexts().some((text) => text.includes('[attached: ticket.pdf, application/pdf'))).toBe(true);
  });

  it('handles malformed MIME, a 25 MB attachment and a mail with no text part, and keeps listening', async () => {
    const broken = [
      'From: broken@example.com', `To: ${BOT}`, 'Subject: broken', 'Message-ID: <broken-1@mail.example.com>', 'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="never-closed"', '', '--never-closed', 'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64', '', 'SGVsbG8gZnJvbSBhIGJyb2tlbiBtYWls!!!not base64', '',
    ].join('\r\n');
    await sb().deliver(broken);
    const big = randomBytes(25 * 1024 * 1024);
    const { messageId: huge } = await sb().send({ from: 'big@example.com', subject: 'Big file', text: 'The scan is attached.', attachments: [{ filename: 'scan.tiff', content: big, contentType: 'image/tiff' }] });
    const { messageId: blank } = await sb().send({ from: 'blank@example.com', subject: 'no text', attachments: [{ filename: 'note.txt', content: Buffer.from('hi'), contentType: 'text/plain' }] });
    const { messageId: htmlOnly } = await sb().send({ from: 'html@example.com', subject: 'html', html: '<p>Only <b>HTML</b> here</p><blockquote>old quoted text</blockquote>' });
    await answered(['<broken-1@mail.example.com>', huge, blank, htmlOnly], 'answers to every odd mail', 60_000);
    const texts = modelTexts();
    expect(texts.some((text) => text.includes('scan.tiff') && text.includes('too large to keep'))).toBe(true);
    expect(texts.some((text) => text.includes('[attached: note.txt'))).toBe(true);
    expect(texts.some((text) => text.startsWith('Only HTML here') && !text.includes('old quoted text'))).toBe(true);
    await drain('odd-marker@example.com');
  });
});
