import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { ApprovalRecord } from '../../../src/runtime/approvals/approval-types.ts';
import { sampleApproval } from '../../../test/support/approval-fixtures.ts';
import { bookFlightSentence } from './book-flight-sentence.ts';
import { describeApprovalRequest, waitingForText } from './describe-request.ts';
import { parseApprovalReply } from './parse-reply.ts';
import { approvalRequestText } from './request-text.ts';

const clock = (): Date => new Date('2030-01-01T11:30:00.000Z');
const sentences = { book_flight: bookFlightSentence };

const booking: ApprovalRecord = sampleApproval({
  approvalId: 'a1',
  status: 'pending',
  shortCode: 'K7QX3M',
  requester: { channel: 'web', address: 'web:conv-1', personId: 'ada' },
  createdAt: '2030-01-01T11:30:00.000Z',
  expiresAt: '2030-01-01T15:30:00.000Z',
  args: {
    flightNumber: 'MW 304',
    date: '2030-02-18',
    passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Grace Hopper' }],
    totalCost: 412.5,
    currency: 'EUR',
  },
});

const invoice: ApprovalRecord = {
  ...booking,
  toolName: 'send_invoice',
  args: {
    customer: { legal_name: 'ACME Ltd', address: { city: 'Paris', postCode: '75001' } },
    lineItems: [
      { description: 'Consulting', hours: 10, unitPrice: 95 },
      { description: 'Travel', hours: 1, unitPrice: 120 },
    ],
    tags: ['q1', 'consulting'],
    amount: 1070,
    currency: 'EUR',
    dueAt: '2030-01-31T17:00:00+01:00',
    notes: 'Line one\nline two '.repeat(20),
    urgent: true,
    poNumber: null,
  },
};

describe('describeApprovalRequest', () => {
  it('says why a request is asked when the record says, in the long text too', () => {
    const tainted: ApprovalRecord = { ...booking, askedBecause: 'this turn read content from outside: email body' };
    expect(describeApprovalRequest(tainted, { clock, sentences }).because).toBe('Asked because this turn read content from outside: email body.');
    expect(describeApprovalRequest(booking, { clock, sentences }).because).toBeUndefined();
    const long = approvalRequestText(tainted, { clock, sentences, form: 'long' });
    expect(long).toContain('\n\nAsked because this turn read content from outside: email body.\n\n');
    for (const line of long.split('\n')) expect(parseApprovalReply(line).kind).toBe('none');
  });

  it('describes a booking in plain words with the tool sentence', () => {
    expect(describeApprovalRequest(booking, { clock, sentences })).toEqual({
      title: 'Approval needed: book_flight',
      summary: 'concierge wants to book flight MW 304 on Mon 18 Feb 2030 for Ada Lovelace and Grace Hopper, EUR 412.50.',
      action: 'book flight MW 304 on Mon 18 Feb 2030 for Ada Lovelace and Grace Hopper, EUR 412.50',
      details: [
        { label: 'Flight number', value: 'MW 304' },
        { label: 'Date', value: 'Mon 18 Feb 2030' },
        { label: 'Passengers', value: 'Ada Lovelace, Grace Hopper' },
        { label: 'Total cost', value: 'EUR 412.50', isAmount: true },
      ],
      amount: 'EUR 412.50',
      requestedBy: 'ada',
      expiry: 'expires in 4 hours, at 15:30 UTC',
      expired: false,
      shortCode: 'K7QX3M',
      replyInstruction: 'Reply APPROVE K7QX3M or DENY K7QX3M',
    });
  });

  it('uses the default sentence without a registered one, or when it throws', () => {
    expect(describeApprovalRequest(booking, { clock }).summary).toBe('concierge wants to run book_flight with:');
    const broken = { book_flight: (): string => { throw new Error('bad args'); } };
    expect(describeApprovalRequest(booking, { clock, sentences: broken }).action).toBeUndefined();
  });

  it('humanises keys, flattens objects, joins arrays, formats dates and money, cuts long values', () => {
    const details = describeApprovalRequest(invoice, { clock, maxValueChars: 60 }).details;
    expect(details.map((line) => `${line.label}: ${line.value}`)).toEqual([
      'Customer legal name: ACME Ltd',
      'Customer address city: Paris',
      'Customer address post code: 75001',
      'Line items 1: description Consulting, hours 10, unit price EUR 95.00',
      'Line items 2: description Travel, hours 1, unit price EUR 120.00',
      'Tags: q1, consulting',
      'Amount: EUR 1,070.00',
      'Due at: Thu 31 Jan 2030, 17:00 UTC+01:00',
      'Notes: Line one line two Line one line two Line one line two Lin...',
      'Urgent: yes',
      'Po number: none',
    ]);
  });

  it('phrases an expiry that has passed, or is on another day, in the given time zone', () => {
    expect(describeApprovalRequest(booking, { clock: () => new Date('2030-01-01T16:00:00Z') })).toMatchObject({
      expiry: 'expired at 15:30 UTC',
      expired: true,
    });
    const later = { ...booking, expiresAt: '2030-01-04T09:00:00.000Z' };
    expect(describeApprovalRequest(later, { clock }).expiry).toBe('expires in 3 days, at 09:00 UTC on Fri 4 Jan 2030');
    expect(describeApprovalRequest(booking, { clock, timeZone: 'Europe/Paris' }).expiry).toBe('expires in 4 hours, at 16:30 Europe/Paris');
    expect(() => describeApprovalRequest(booking, { clock, timeZone: 'Mars/Olympus' })).toThrow(SwitchboardError);
  });
});

describe('waitingForText', () => {
  it('names each approver once: their person, else their channel and address', () => {
    const grace = { channel: 'email', address: 'grace@example.com', personId: 'grace' };
    expect(waitingForText({ approvers: [grace, { channel: 'sms', address: '+447700900123', personId: 'grace' }] })).toBe("Waiting for grace's approval.");
    expect(waitingForText({ approvers: [grace, { channel: 'sms', address: '+447700900124' }, { channel: 'email', address: 'boss@example.com', personId: 'boss' }] })).toBe(
      'Waiting for approval from grace, sms +447700900124 or boss.',
    );
    expect(waitingForText({ approvers: [] })).toBe('Waiting for an approver.');
  });

  it('is in the description only when the recipient may not decide', () => {
    expect(describeApprovalRequest(booking, { clock })).not.toHaveProperty('waitingFor');
    expect(describeApprovalRequest(booking, { clock, mayDecide: false }).waitingFor).toBe("Waiting for boss's approval.");
  });
});

describe('approvalRequestText', () => {
  it('gives the exact short text of a booking, within one long SMS', () => {
    const text = approvalRequestText(booking, { clock, sentences });
    expect(text).toBe(
      'Approval K7QX3M: concierge wants to book flight MW 304 on Mon 18 Feb 2030 for Ada Lovelace and Grace Hopper, EUR 412.50.\n' +
        'Expires in 4 hours, at 15:30 UTC.\n' +
        'Reply APPROVE K7QX3M or DENY K7QX3M',
    );
    expect(text.length).toBeLessThanOrEqual(306);
  });

  it('lists the arguments inline without a sentence, dropping lines but never the amount to fit', () => {
    expect(approvalRequestText(booking, { clock })).toBe(
      'Approval K7QX3M: concierge wants to run book_flight with: Flight number: MW 304; Date: Mon 18 Feb 2030; ' +
        'Passengers: Ada Lovelace, Grace Hopper; Total cost: EUR 412.50.\nExpires in 4 hours, at 15:30 UTC.\nReply APPROVE K7QX3M or DENY K7QX3M',
    );
    const text = approvalRequestText(invoice, { clock });
    expect(text.length).toBeLessThanOrEqual(306);
    expect(text).toContain('Amount: EUR 1,070.00; (+');
    expect(text.endsWith('\nReply APPROVE K7QX3M or DENY K7QX3M')).toBe(true);
    const tiny = approvalRequestText(invoice, { clock, maxChars: 120 });
    expect(tiny.length).toBeLessThanOrEqual(120);
    expect(tiny).toContain('Reply APPROVE K7QX3M or DENY K7QX3M');
    expect(() => approvalRequestText(invoice, { maxChars: 0 })).toThrow(SwitchboardError);
  });

  it('gives the long form for email', () => {
    expect(approvalRequestText(booking, { clock, sentences, form: 'long' })).toBe(
      [
        'Approval needed: book_flight',
        '',
        'concierge wants to book flight MW 304 on Mon 18 Feb 2030 for Ada Lovelace and Grace Hopper, EUR 412.50.',
        '',
        'Flight number: MW 304',
        'Date: Mon 18 Feb 2030',
        'Passengers: Ada Lovelace, Grace Hopper',
        'Total cost: EUR 412.50',
        '',
        'Requested by: ada',
        'Code: K7QX3M',
        'This request expires in 4 hours, at 15:30 UTC.',
        '',
        'Reply APPROVE K7QX3M or DENY K7QX3M as the first line of your answer.',
      ].join('\n'),
    );
  });

  it('tells a recipient who may not decide whose approval is awaited, without any instruction', () => {
    const short = approvalRequestText(booking, { clock, sentences, mayDecide: false });
    expect(short).toBe(
      'Approval K7QX3M: concierge wants to book flight MW 304 on Mon 18 Feb 2030 for Ada Lovelace and Grace Hopper, EUR 412.50.\n' +
        'Expires in 4 hours, at 15:30 UTC.\n' +
        "Waiting for boss's approval.",
    );
    const long = approvalRequestText(booking, { clock, sentences, form: 'long', mayDecide: false });
    expect(long.endsWith("This request expires in 4 hours, at 15:30 UTC.\n\nWaiting for boss's approval.")).toBe(true);
    for (const text of [short, long]) expect(text).not.toMatch(/APPROVE|DENY|[Rr]eply/);
    expect(approvalRequestText(booking, { clock, sentences, mayDecide: true })).toContain('Reply APPROVE K7QX3M or DENY K7QX3M');
  });

  it('has no JSON or Markdown, and no line of it decides when quoted back', () => {
    for (const record of [booking, invoice]) {
      for (const form of ['short', 'long'] as const) {
        const text = approvalRequestText(record, { clock, sentences, form });
        expect(text).not.toMatch(/[{}[\]"`*]|\*\*|^#/m);
        for (const line of text.split('\n')) expect(parseApprovalReply(line).kind).toBe('none');
      }
    }
  });
});
