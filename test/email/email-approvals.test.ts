/**
 * The email channel end to end on the example app, against real servers: a person mails the bot
 * and gets a threaded answer, asks for a booking in the same thread, receives the approval request,
 * replies APPROVE and gets the confirmation in the same thread. Then every way a reply must not
 * decide: a denial, a non-approver, a broken DKIM signature, an expired approval, a reply without a
 * decision word.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openExampleApp } from '../support/open-example-app.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import type { RecordedMail } from '../support/smtp-recorder.ts';
import { headerOf, useEmailSwitchboard } from './email-harness.ts';

const ADA = 'ada@example.com';
const booking = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' };

const redisUrl = useRedis();
// Mail comes from people the example app does not know: this copy of it lets anyone write by email.
const appDir = openExampleApp('switchboard-email-approvals-', ['email']);
afterAll(() => { rmSync(appDir, { recursive: true, force: true }); });
const sb = useEmailSwitchboard({
  appDir,
  redisUrl,
  script: scenarioScript({
    hello: [() => reply(respond([part('response', 'Happy to help with **flights** to Paris.')], 'complete'))],
    book: [
      () => reply(toolCall('book_flight', booking)),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
  }),
});

function quoted(mail: RecordedMail): string {
  return `On Tue, 24 Nov 2026 at 10:00, Concierge <bot@example.com> wrote:\n${(mail.parsed.text ?? '').split('\n').map((line) => `> ${line}`).join('\n')}`;
}

/** Starts a thread and asks for the booking in it; resolves to the approval request mail and the thread's ids. */
async function askForBooking(subject: string, from = ADA): Promise<{ request: RecordedMail; approvalId: string; root: string; second: string }> {
  const { messageId: root } = await sb().send({ from: `Ada Lovelace <${from}>`, subject, text: 'Hello there #hello' });
  const answer = await sb().waitForMail(from, (mail) => mail.parsed.inReplyTo === root, 'the first answer');
  const { messageId: second } = await sb().send({
    from, subject: `Re: ${subject}`, inReplyTo: answer.parsed.messageId ?? '', references: [root, answer.parsed.messageId ?? ''],
    text: `Book MW 304 for me please #book\n\n${quoted(answer)}`,
  });
  const request = await sb().waitForMail(from, (mail) => /^<sb\.a\./.test(mail.parsed.messageId ?? '') && (mail.parsed.references ?? []).includes(root), 'the approval request');
  const approvalId = /^<sb\.a\.([A-Za-z0-9_-]{22})\./.exec(request.parsed.messageId ?? '')?.[1] ?? '';
  return { request, approvalId, root, second };
}

async function replyTo(request: RecordedMail, text: string, extra: { from?: string; tamper?: (raw: string) => string } = {}): Promise<string> {
  const { messageId } = await sb().send({
    from: extra.from ?? request.envelope.rcptTo[0] ?? ADA,
    subject: `RE: ${request.parsed.subject ?? ''}`,
    inReplyTo: request.parsed.messageId ?? '',
    references: [...(Array.isArray(request.parsed.references) ? request.parsed.references : [request.parsed.references ?? '']), request.parsed.messageId ?? ''],
    text: `${text}\n\n${quoted(request)}`,
    ...(extra.tamper === undefined ? {} : { tamper: extra.tamper }),
  });
  return messageId;
}

const audit = (approvalId: string) => createApprovalStore({ redis: sb().redis(), prefix: sb().prefix }).audit(approvalId);

describe('email: a conversation with an approval by reply', () => {
  it('answers in the thread, keeps the session, asks for approval, and confirms in the same thread after APPROVE', async () => {
    const { request, approvalId, root, second } = await askForBooking('Trip to Paris');
    const first = sb().mailsTo(ADA).find((mail) => mail.parsed.inReplyTo === root);
    expect(first?.parsed.subject).toBe('Re: Trip to Paris');
    expect(headerOf(first as RecordedMail, 'auto-submitted')).toBe('auto-replied');
    expect(first?.parsed.html).toContain('<strong>flights</strong>');
    expect(first?.parsed.text).toContain('Happy to help with flights to Paris.');
    expect(first?.parsed.text).not.toContain('**');

    expect(request.parsed.subject).toBe('Re: Trip to Paris');
    expect(headerOf(request, 'auto-submitted')).toBe('auto-generated');
    expect(request.parsed.text).toMatch(/APPROVE/);
    expect(request.parsed.text).toContain('MW 304');

    await replyTo(request, 'APPROVE');
    const confirmation = await sb().waitForMail(ADA, (mail) => (mail.parsed.text ?? '').includes('Result:'), 'the confirmation');
    expect(confirmation.parsed.inReplyTo).toBe(second);
    expect(confirmation.parsed.references).toContain(root);
    expect(confirmation.parsed.subject).toBe('Re: Trip to Paris');
    expect(confirmation.parsed.text).toContain('confirmed');
    expect(sb().mailsTo(ADA).some((mail) => /^Approved [A-Z0-9]{6}/.test(mail.parsed.text ?? ''))).toBe(true);
    expect((await audit(approvalId)).map((entry) => entry.action)).toEqual(['requested', 'granted', 'executed']);

    const log = await createEventLog({ redis: sb().redis(), prefix: sb().prefix }).read(sessionIdOf('default', 'email', `${ADA} ${root}`), 1000);
    expect(new Set(log.filter((entry) => entry.type === 'injection').map((entry) => entry.data['id']))).toEqual(new Set([expect.stringMatching(/^email:/), expect.stringMatching(/^email:/)]));
  });

  it('a DENY reply refuses the booking', async () => {
    const { request, approvalId } = await askForBooking('Trip to Lisbon', 'lisbon@example.com');
    await replyTo(request, 'Deny, thanks');
    await sb().waitForMail('lisbon@example.com', (mail) => /^Denied [A-Z0-9]{6}/.test(mail.parsed.text ?? ''), 'the denial answer');
    expect((await audit(approvalId)).map((entry) => entry.action)).toEqual(['requested', 'denied']);
  });

  it('refuses a non-approver, a broken DKIM signature, a reply without a decision and a reply to an expired approval, with an answer each', async () => {
    const ROME = 'rome@example.com';
    const { request, approvalId } = await askForBooking('Trip to Rome', ROME);
    await replyTo(request, 'APPROVE', { from: 'mallory@example.com' });
    await sb().waitForMail('mallory@example.com', (mail) => (mail.parsed.text ?? '').includes('not an approver'), 'the non-approver answer');

    // The body changed after signing (relaxed canonicalisation ignores whitespace, so change a letter's case).
    await replyTo(request, 'APPROVE', { tamper: (raw) => raw.replace('\r\n\r\nAPPROVE', '\r\n\r\nApprove') });
    await sb().waitForMail(ROME, (mail) => (mail.parsed.text ?? '').includes('could not be verified'), 'the unverified answer');

    await replyTo(request, 'Sounds good to me');
    await sb().waitForMail(ROME, (mail) => (mail.parsed.text ?? '').includes('reply with APPROVE or DENY'), 'the no-decision answer');

    const trail = await audit(approvalId);
    expect(trail.filter((entry) => entry.action === 'refused').map((entry) => entry.detail)).toEqual([
      'granted: not an approver',
      expect.stringContaining('granted: the sender could not be verified') as unknown,
    ]);
    expect((await createApprovalStore({ redis: sb().redis(), prefix: sb().prefix }).get(approvalId))?.status).toBe('pending');

    await createApprovalStore({ redis: sb().redis(), prefix: sb().prefix }).expire(approvalId);
    await replyTo(request, 'approve');
    await sb().waitForMail(ROME, (mail) => /already expired/.test(mail.parsed.text ?? ''), 'the expired answer');
    expect((await audit(approvalId)).some((entry) => entry.action === 'granted')).toBe(false);
  });
});
