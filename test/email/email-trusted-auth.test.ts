/**
 * Approval by reply when the operator's receiving server vouches for senders
 * (`EMAIL_TRUSTED_AUTHSERV_ID=mx.example.com`), end to end on the example app against real
 * servers. Mail is unsigned: only the topmost `Authentication-Results` header bearing the trusted
 * authserv-id decides. Proves that its `dmarc=pass` grants the approval; that its `dmarc=fail` is
 * not overridden by a forged `mx.example.com; dmarc=pass` header further down; and that a header
 * from another authserv-id (`evil.test; dmarc=pass`) counts for nothing. Each refusal is answered
 * by mail, written to the audit trail with the reason, and leaves the approval pending.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openExampleApp } from '../support/open-example-app.ts';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import type { RecordedMail } from '../support/smtp-recorder.ts';
import { useEmailSwitchboard } from './email-harness.ts';

const TRUSTED = 'mx.example.com';
const booking = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 118, currency: 'GBP' };

const redisUrl = useRedis();
// Mail comes from people the example app does not know: this copy of it lets anyone write by email.
const appDir = openExampleApp('switchboard-email-trusted-', ['email']);
afterAll(() => { rmSync(appDir, { recursive: true, force: true }); });
const sb = useEmailSwitchboard({
  appDir,
  redisUrl,
  env: { EMAIL_TRUSTED_AUTHSERV_ID: TRUSTED },
  script: scenarioScript({
    hello: [() => reply(respond([part('response', 'Happy to help with flights.')], 'complete'))],
    book: [
      () => reply(toolCall('book_flight', booking)),
      (call) => reply(respond([part('response', `Result: ${call.toolResults.map((result) => result.content).join(' ')}`)], 'complete')),
    ],
  }),
});

/** Puts header lines above everything else in a raw message, as the receiving server does. */
function prepend(...lines: readonly string[]): (raw: string) => string {
  return (raw) => `${lines.map((line) => `${line}\r\n`).join('')}${raw}`;
}

/** What the trusted server stamps on genuine mail from `example.com`. */
const trustedPass = prepend(`Authentication-Results: ${TRUSTED}; dkim=pass header.d=example.com; dmarc=pass header.from=example.com`);

function quoted(mail: RecordedMail): string {
  return `On Tue, 24 Nov 2026 at 10:00, Concierge <bot@example.com> wrote:\n${(mail.parsed.text ?? '').split('\n').map((line) => `> ${line}`).join('\n')}`;
}

/**
 * Starts a thread from `from` (mail stamped by the trusted server, unsigned) and asks for the
 * booking in it; resolves to the approval request mail and its approval id.
 */
async function askForBooking(subject: string, from: string): Promise<{ request: RecordedMail; approvalId: string }> {
  const { messageId: root } = await sb().send({ from, subject, text: 'Hello there #hello', sign: 'none', tamper: trustedPass });
  const answer = await sb().waitForMail(from, (mail) => mail.parsed.inReplyTo === root, 'the first answer');
  await sb().send({
    from, subject: `Re: ${subject}`, inReplyTo: answer.parsed.messageId ?? '', references: [root, answer.parsed.messageId ?? ''],
    text: `Book MW 304 for me please #book\n\n${quoted(answer)}`, sign: 'none', tamper: trustedPass,
  });
  const request = await sb().waitForMail(from, (mail) => /^<sb\.a\./.test(mail.parsed.messageId ?? '') && (mail.parsed.references ?? []).includes(root), 'the approval request');
  const approvalId = /^<sb\.a\.([A-Za-z0-9_-]{22})\./.exec(request.parsed.messageId ?? '')?.[1] ?? '';
  expect(approvalId).not.toBe('');
  return { request, approvalId };
}

/** Replies APPROVE to the request, unsigned, with `headers` in the message and `tamper` applied to its raw form. */
async function approveByReply(request: RecordedMail, from: string, auth: { headers?: Record<string, string>; tamper?: (raw: string) => string }): Promise<void> {
  await sb().send({
    from,
    subject: `RE: ${request.parsed.subject ?? ''}`,
    inReplyTo: request.parsed.messageId ?? '',
    references: [...(Array.isArray(request.parsed.references) ? request.parsed.references : [request.parsed.references ?? '']), request.parsed.messageId ?? ''],
    text: `APPROVE\n\n${quoted(request)}`,
    sign: 'none',
    ...(auth.headers === undefined ? {} : { headers: auth.headers }),
    ...(auth.tamper === undefined ? {} : { tamper: auth.tamper }),
  });
}

const store = () => createApprovalStore({ redis: sb().redis(), prefix: sb().prefix });

/** Waits for the "could not be verified" answer, then checks the trail and that the approval is still pending. */
async function expectRefused(from: string, approvalId: string, basis: string): Promise<void> {
  const answer = await sb().waitForMail(from, (mail) => (mail.parsed.text ?? '').includes('could not be verified'), 'the unverified answer');
  expect(answer.parsed.text).not.toMatch(/^Approved /m);
  const trail = await store().audit(approvalId);
  expect(trail.map((entry) => entry.action)).toEqual(['requested', 'refused']);
  expect(trail[1]?.detail).toBe(`granted: the sender could not be verified (${basis})`);
  expect((await store().get(approvalId))?.status).toBe('pending');
  expect(sb().mailsTo(from).some((mail) => (mail.parsed.text ?? '').includes('Result:'))).toBe(false);
}

describe('email: sender authentication from the trusted server\'s Authentication-Results header', () => {
  it('grants an APPROVE whose topmost trusted header says dmarc=pass for the From domain', async () => {
    const ADA = 'ada@example.com';
    const { request, approvalId } = await askForBooking('Trip to Paris', ADA);
    await approveByReply(request, ADA, { tamper: trustedPass });
    const confirmation = await sb().waitForMail(ADA, (mail) => (mail.parsed.text ?? '').includes('Result:'), 'the confirmation');
    expect(confirmation.parsed.text).toContain('confirmed');
    expect(sb().mailsTo(ADA).some((mail) => /^Approved [A-Z0-9]{6}/.test(mail.parsed.text ?? ''))).toBe(true);
    const trail = await store().audit(approvalId);
    expect(trail.map((entry) => entry.action)).toEqual(['requested', 'granted', 'executed']);
    expect(trail[1]?.by).toMatchObject({ verified: true, basis: `trusted Authentication-Results from ${TRUSTED}: dmarc=pass header.from=example.com` });
  });

  it('refuses when the topmost trusted header says dmarc=fail, whatever a forged trusted header below it says', async () => {
    const FROM = 'forger@example.com';
    const { request, approvalId } = await askForBooking('Trip to Lisbon', FROM);
    let delivered = '';
    await approveByReply(request, FROM, {
      // In the sender's own header block, so below what the receiving server prepends.
      headers: { 'Authentication-Results': `${TRUSTED}; dkim=pass header.d=example.com; dmarc=pass header.from=example.com` },
      tamper: (raw) => (delivered = prepend(`Authentication-Results: ${TRUSTED}; dkim=none; dmarc=fail header.from=example.com`)(raw)),
    });
    // Both claim the trusted id, both are header fields, and the forged pass is the lower one.
    const headerBlock = delivered.slice(0, delivered.indexOf('\r\n\r\n'));
    expect(headerBlock.match(new RegExp(`^Authentication-Results: ${TRUSTED.replaceAll('.', '\\.')};`, 'gim'))).toHaveLength(2);
    expect(headerBlock.indexOf('dmarc=fail')).toBeLessThan(headerBlock.indexOf('dmarc=pass'));
    expect(headerBlock.indexOf('dmarc=fail')).toBeGreaterThan(-1);
    await expectRefused(FROM, approvalId, `trusted Authentication-Results from ${TRUSTED}: dmarc=fail header.from=example.com`);
  });

  it('refuses when the only dmarc=pass comes from another authserv-id', async () => {
    const FROM = 'stranger@example.com';
    const { request, approvalId } = await askForBooking('Trip to Rome', FROM);
    await approveByReply(request, FROM, {
      tamper: prepend('Authentication-Results: evil.test; dkim=pass header.d=example.com; dmarc=pass header.from=example.com'),
    });
    await expectRefused(FROM, approvalId, `no Authentication-Results header from ${TRUSTED}`);
  });
});
