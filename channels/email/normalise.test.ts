import { describe, expect, it } from 'vitest';
import { normaliseEmailEvent } from './normalise.ts';

const options = { people: [], tenantId: 'tenant-1', botAddress: 'bot@example.com' };
const event = {
  type: 'email',
  uidValidity: 7,
  uid: 42,
  messageId: '<m1@example.com>',
  references: '',
  subject: 'Paris',
  from: 'ada@example.com',
  conversationKey: 'ada@example.com <m1@example.com>',
  text: 'APPROVE',
  attachments: [],
  verified: true,
  basis: 'DKIM pass d=example.com',
  receivedAt: '2026-11-24T10:00:00.000Z',
};

describe('normaliseEmailEvent', () => {
  it('trusts a mail body only when the sender is verified and a known person', () => {
    const ada = { id: 'ada', name: 'Ada Lovelace', addresses: { web: [], email: ['ada@example.com'], sms: [], whatsapp: [], slack: [] }, roles: [] };
    const known = { ...options, people: [ada] };
    expect(normaliseEmailEvent(event, known)?.content).toEqual({ source: 'email-body', trusted: true });
    expect(normaliseEmailEvent({ ...event, verified: false, basis: 'DKIM fail' }, known)?.content).toEqual({ source: 'email-body', trusted: false });
    // Verified, but nobody the app knows: outside content.
    expect(normaliseEmailEvent(event, options)?.content).toEqual({ source: 'email-body', trusted: false });
  });

  it('carries an approval reply\'s own fields only', () => {
    const approval = JSON.parse('{"approvalId":"a1","decision":"granted","__proto__":{"polluted":1}}') as unknown;
    expect(normaliseEmailEvent({ ...event, approval }, options)).toMatchObject({ kind: 'approval-response', data: { approvalId: 'a1', decision: 'granted' } });
    expect(normaliseEmailEvent({ ...event, approval }, options)?.data).toEqual({ approvalId: 'a1', decision: 'granted' });
    expect(normaliseEmailEvent({ ...event, approval: { answer: 'Nothing was decided.' } }, options)?.data).toEqual({ answer: 'Nothing was decided.' });
  });

  // Counterexamples found by normalise.properties.test.ts: a TypeError, or a malformed injection.
  it.each([
    ['an approval of null (was a TypeError)', { approval: null }],
    ['an approval that is a number (was a TypeError)', { approval: 5 }],
    ['an approval whose id is a Set', { approval: { approvalId: new Set(), answer: '' } }],
    ['an approval holding only a __proto__ key', { approval: JSON.parse('{"__proto__":{"answer":"x"}}') as unknown }],
    ['an approval with both an answer and a decision', { approval: { approvalId: 'a1', decision: 'granted', answer: 'x' } }],
    ['a receivedAt that is no time', { receivedAt: ' ' }],
    ['a display name that is not a string', { fromName: 5 }],
    ['an attachment that is not one', { attachments: [null] }],
  ])('refuses %s with channel.invalid', (_name, change) => {
    expect(() => normaliseEmailEvent({ ...event, ...change }, options)).toThrow(expect.objectContaining({ code: 'channel.invalid' }));
  });
});
