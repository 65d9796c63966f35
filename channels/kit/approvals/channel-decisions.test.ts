import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { mayDecide } from '../../../src/runtime/approvals/approval-authority.ts';
import type { ApprovalRecord, ApprovalStore, DecisionAttempt, DecisionOutcome } from '../../../src/runtime/approvals/approval-types.ts';
import { sampleApproval } from '../../../test/support/approval-fixtures.ts';
import { bookFlightSentence } from './book-flight-sentence.ts';
import { createChannelDecisions, type ChannelReply } from './channel-decisions.ts';

const NOW = new Date('2030-01-01T10:30:00.000Z');
const boss = { channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true } as const;
const flightArgs = { flightNumber: 'MW 304', date: '2030-02-18', passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 412.5, currency: 'EUR' };

function approval(id: string, shortCode: string, overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return sampleApproval({ approvalId: id, status: 'pending', shortCode, args: flightArgs, ...overrides });
}

/** An in-memory store with the two reads the flow uses, and a `decide` that records its attempts. */
function setup(records: readonly ApprovalRecord[], outcome?: (attempt: DecisionAttempt, record: ApprovalRecord) => DecisionOutcome) {
  const attempts: DecisionAttempt[] = [];
  const store: Pick<ApprovalStore, 'findByShortCode' | 'pendingFor'> = {
    findByShortCode: (who, code) =>
      Promise.resolve(records.find((r) => r.status === 'pending' && r.shortCode === code.toUpperCase() && mayDecide(r, who))),
    pendingFor: (who) => Promise.resolve(records.filter((r) => r.status === 'pending' && mayDecide(r, who))),
  };
  const decide = (attempt: DecisionAttempt): Promise<DecisionOutcome> => {
    attempts.push(attempt);
    const record = records.find((r) => r.approvalId === attempt.approvalId);
    if (record === undefined) return Promise.resolve({ ok: false, refusal: 'unknown_approval', message: 'No approval with that id.' });
    if (outcome !== undefined) return Promise.resolve(outcome(attempt, record));
    return Promise.resolve({ ok: true, record: { ...record, status: attempt.decision, decidedBy: attempt.by, decidedAt: NOW.toISOString() } });
  };
  const decisions = createChannelDecisions({ store, decide, clock: () => NOW, sentences: { book_flight: bookFlightSentence } });
  const reply = (text: string, sender: ChannelReply['sender'] = boss) => decisions.fromReply({ sender, text });
  return { attempts, reply, decisions };
}

describe('fromReply', () => {
  it('passes ordinary text, STOP and CANCEL to the actor without deciding', async () => {
    const { attempts, reply } = setup([approval('a1', 'K7QX3M')]);
    expect(await reply('Can you also book a hotel?')).toEqual({ handled: false, reason: 'question' });
    expect(await reply('STOP')).toEqual({ handled: false, reason: 'no-verb' });
    expect(await reply('CANCEL K7QX3M')).toEqual({ handled: false, reason: 'no-verb' });
    expect(await reply('yes')).toEqual({ handled: false, reason: 'no-verb' });
    expect(attempts).toEqual([]);
  });

  it('decides the approval a code names, with the channel identity as `by`', async () => {
    const { attempts, reply } = setup([approval('a0', 'QQQQQQ'), approval('a1', 'K7QX3M')]);
    const result = await reply('approve k7qx3m');
    expect(attempts).toEqual([
      { approvalId: 'a1', decision: 'granted', by: { channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true } },
    ]);
    expect(result).toMatchObject({ handled: true, decision: 'granted', approval: { approvalId: 'a1' }, outcome: { ok: true } });
    expect(result.handled && result.answer).toBe('Approved K7QX3M: book flight MW 304 on Mon 18 Feb 2030 for Ada Lovelace, EUR 412.50. Thanks.');
  });

  it('confirms a denial', async () => {
    const { reply } = setup([approval('a1', 'K7QX3M', { toolName: 'refund', args: { amount: 20, currency: 'GBP' } })]);
    const result = await reply('DENY K7QX3M');
    expect(result.handled && result.answer).toBe('Denied K7QX3M: refund (GBP 20.00). It will not be done.');
  });

  it('answers a code that names nothing, listing what is pending, without deciding', async () => {
    const { attempts, reply } = setup([approval('a1', 'K7QX3M')]);
    const result = await reply('APPROVE ABC123');
    expect(result).toEqual({
      handled: true,
      decision: 'granted',
      refused: 'unknown_code',
      answer: 'No pending approval ABC123 for you, so nothing was decided. Your pending approvals: K7QX3M (book_flight, EUR 412.50).',
    });
    expect(attempts).toEqual([]);
  });

  it('does not find another approver\'s approval by its code', async () => {
    const { attempts, reply } = setup([approval('a1', 'K7QX3M')]);
    const stranger = { channel: 'email', address: 'eve@example.com', verified: true };
    expect(await reply('APPROVE K7QX3M', stranger)).toMatchObject({
      refused: 'unknown_code',
      answer: 'No pending approval K7QX3M for you, so nothing was decided.',
    });
    expect(attempts).toEqual([]);
  });

  it('decides the one pending approval on a bare verb', async () => {
    const { attempts, reply } = setup([approval('a1', 'K7QX3M')]);
    const result = await reply('Approve.');
    expect(attempts.map((attempt) => attempt.approvalId)).toEqual(['a1']);
    expect(result).toMatchObject({ handled: true, outcome: { ok: true } });
  });

  it('answers a bare verb with nothing pending instead of passing it on', async () => {
    const { attempts, reply } = setup([approval('a1', 'K7QX3M', { status: 'granted' })]);
    expect(await reply('deny')).toEqual({
      handled: true,
      decision: 'denied',
      refused: 'nothing_pending',
      answer: 'You have no pending approvals, so nothing was decided.',
    });
    expect(attempts).toEqual([]);
  });

  it('asks for a code when a bare verb could mean two approvals', async () => {
    const { attempts, reply } = setup([approval('a1', 'K7QX3M'), approval('a2', 'HJ4WN9', { toolName: 'cancel_booking', args: {} })]);
    const result = await reply('APPROVE');
    expect(result).toMatchObject({ handled: true, refused: 'ambiguous' });
    expect(result.handled && result.answer).toBe(
      'You have 2 pending approvals: K7QX3M (book_flight, EUR 412.50), HJ4WN9 (cancel_booking). Nothing was decided; reply APPROVE followed by the code of one of them.',
    );
    expect(attempts).toEqual([]);
  });

  it('refuses an unverified sender before looking anything up, and never decides', async () => {
    const { attempts, decisions } = setup([approval('a1', 'K7QX3M')]);
    const sms = { channel: 'sms', address: '+447700900123', personId: 'boss', verified: false };
    for (const text of ['APPROVE K7QX3M', 'approve', 'DENY ABC123']) {
      const result = await decisions.fromReply({ sender: sms, text });
      expect(result).toMatchObject({ handled: true, refused: 'unverified' });
      expect(result.handled && result.answer).toMatch(/^Nothing was decided: this channel could not verify/);
      expect(result).not.toHaveProperty('outcome');
    }
    expect(attempts).toEqual([]);
  });

  it('refuses a channel or address that is not the sender\'s', async () => {
    const { decisions } = setup([]);
    await expect(decisions.fromReply({ sender: boss, text: 'APPROVE', address: 'other@example.com' })).rejects.toBeInstanceOf(SwitchboardError);
    await expect(decisions.fromReply({ sender: boss, text: 'APPROVE', channel: 'email', address: boss.address })).resolves.toMatchObject({
      handled: true,
    });
  });

  describe('words every refusal of the store', () => {
    const decided = { decidedBy: { channel: 'email', address: 'grace@example.com', personId: 'grace' }, decidedAt: '2030-01-01T10:02:00.000Z' };
    const refusals: readonly (readonly [string, (record: ApprovalRecord) => DecisionOutcome, string])[] = [
      [
        'already_decided (granted)',
        (r) => ({ ok: false, refusal: 'already_decided', message: 'x', record: { ...r, status: 'granted', ...decided } }),
        'K7QX3M was already approved by grace at 10:02 UTC; your answer changed nothing.',
      ],
      [
        'already_decided (denied, another day)',
        (r) => ({ ok: false, refusal: 'already_decided', message: 'x', record: { ...r, status: 'denied', ...decided, decidedAt: '2029-12-31T09:00:00.000Z' } }),
        'K7QX3M was already denied by grace at 09:00 UTC on Mon 31 Dec 2029; your answer changed nothing.',
      ],
      [
        'already_decided (expired)',
        (r) => ({ ok: false, refusal: 'already_decided', message: 'x', record: { ...r, status: 'expired', decidedAt: '2030-01-01T10:05:00.000Z' } }),
        'K7QX3M had already expired at 10:05 UTC; your answer changed nothing.',
      ],
      [
        'expired',
        (r) => ({ ok: false, refusal: 'expired', message: 'x', record: { ...r, expiresAt: '2030-01-01T10:15:00.000Z' } }),
        'Too late: K7QX3M expired at 10:15 UTC, so your answer was not recorded.',
      ],
      ['not_an_approver', () => ({ ok: false, refusal: 'not_an_approver', message: 'x' }), 'You are not an approver of K7QX3M, so nothing was decided.'],
      ['unknown_approval', () => ({ ok: false, refusal: 'unknown_approval', message: 'x' }), 'No pending approval K7QX3M for you, so nothing was decided.'],
      [
        'args_mismatch',
        (r) => ({ ok: false, refusal: 'args_mismatch', message: 'x', record: r }),
        'K7QX3M changed after it was sent, so nothing was decided. Answer the newest request instead.',
      ],
    ];

    it.each(refusals)('%s', async (_name, outcome, answer) => {
      const { attempts, reply } = setup([approval('a1', 'K7QX3M')], (_attempt, record) => outcome(record));
      const result = await reply('APPROVE K7QX3M');
      expect(attempts).toHaveLength(1);
      expect(result).toMatchObject({ handled: true, answer, outcome: { ok: false } });
      expect(result).not.toHaveProperty('refused');
    });
  });
});
