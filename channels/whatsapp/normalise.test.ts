import { describe, expect, it } from 'vitest';
import { normaliseWhatsAppEvent } from './normalise.ts';
import type { WhatsAppApprovalEvent, WhatsAppMessageEvent } from './whatsapp-event.ts';

const GRACE = '+447700900123';
const people = [{ id: 'grace', name: 'Grace Hopper', addresses: { web: [], email: [], sms: [], slack: [], whatsapp: [GRACE] }, roles: [] }];
const options = { people, tenantId: 'default' };
const message = (overrides: Partial<WhatsAppMessageEvent> = {}): WhatsAppMessageEvent => ({
  type: 'whatsapp', via: 'cloud', messageId: 'wamid.HBgMNDQ3NzAwOTAwMTIzFQIAEhgg', from: GRACE, text: 'Any flights to Corfu?', attachments: [], notes: [], receivedAt: '2030-01-01T10:00:00.000Z', ...overrides,
});

describe('normalising WhatsApp events', () => {
  it('keys a message by its id, its conversation by the number, and names the person', () => {
    expect(normaliseWhatsAppEvent(message(), options)).toEqual({
      id: 'whatsapp:wamid.HBgMNDQ3NzAwOTAwMTIzFQIAEhgg',
      kind: 'message',
      channel: 'whatsapp',
      tenantId: 'default',
      conversationKey: GRACE,
      sender: { id: GRACE, verified: true, basis: `Meta-signed webhook; WhatsApp number ${GRACE}`, personId: 'grace', displayName: 'Grace Hopper' },
      text: 'Any flights to Corfu?',
      content: { source: 'typed', trusted: true },
      replyTo: { channel: 'whatsapp', address: GRACE, thread: { quoteId: 'wamid.HBgMNDQ3NzAwOTAwMTIzFQIAEhgg' } },
      receivedAt: '2030-01-01T10:00:00.000Z',
    });
  });

  it('makes one conversation of a group, answered in the group, and uses the profile name of a stranger', () => {
    const injection = normaliseWhatsAppEvent(message({ via: 'web', from: '+15550100999', profileName: 'Ada', group: { id: '120363041234567890@g.us', name: 'Trip' }, messageId: 'false_120363041234567890@g.us_3EB0AB_15550100999@c.us' }), options);
    expect(injection).toMatchObject({ conversationKey: 'group:120363041234567890@g.us', replyTo: { address: '120363041234567890@g.us' }, sender: { id: '+15550100999', displayName: 'Ada', basis: 'WhatsApp Web linked session; WhatsApp number +15550100999' } });
    expect(injection.sender).not.toHaveProperty('personId');
  });

  it('lists kept files and notes for the actor', () => {
    const injection = normaliseWhatsAppEvent(message({ text: '', attachments: [{ artifactId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', name: 'voice-note.ogg', mimeType: 'audio/ogg', sizeBytes: 20480 }], notes: ['(A video was too large to keep.)'] }), options);
    expect(injection.text).toBe('[attached: voice-note.ogg, audio/ogg, 0.0 MB, artifact Zx4bQ2tGd1sQ9cYk3mWvTa]\n\n(A video was too large to keep.)');
  });

  it('turns a tap on an approval button into an approval response', () => {
    const tap: WhatsAppApprovalEvent = { type: 'whatsapp-approval', via: 'cloud', messageId: 'wamid.tap', from: GRACE, approvalId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', decision: 'granted', argsHash: 'a'.repeat(64), receivedAt: '2030-01-01T10:00:00.000Z' };
    expect(normaliseWhatsAppEvent(tap, options)).toMatchObject({ id: 'whatsapp:wamid.tap', kind: 'approval-response', text: 'Approve', content: { source: 'ui-action', trusted: true }, data: { approvalId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', decision: 'granted', argsHash: 'a'.repeat(64) } });
  });

  it('refuses what is not a WhatsApp event', () => {
    const tap = { type: 'whatsapp-approval', via: 'web', messageId: 'tap-1', from: GRACE, approvalId: 'Zx4bQ2tGd1sQ9cYk3mWvTa', decision: 'granted', receivedAt: '2030-01-01T10:00:00.000Z' };
    expect(normaliseWhatsAppEvent(tap, options)).toMatchObject({ kind: 'approval-response' });
    const bads: unknown[] = [
      null, undefined, 42, 'text', [], {},
      message({ from: '447700900123' }), message({ from: '+0447700900123' }), message({ from: `+${'1'.repeat(16)}` }),
      { ...message(), via: 'sms' }, { ...message(), via: undefined }, { ...message(), type: 'sms' },
      { ...message(), attachments: undefined }, { ...message(), notes: 'none' }, { ...message(), text: undefined }, { ...message(), text: 42 },
      { ...message(), messageId: '' }, { ...message(), messageId: 'x'.repeat(257) }, { ...message(), messageId: 7 }, { ...message(), receivedAt: undefined },
      { ...tap, decision: 'maybe' }, { ...tap, approvalId: undefined }, { ...tap, from: 'grace' },
    ];
    expect(normaliseWhatsAppEvent(message({ messageId: 'x'.repeat(256) }), options)).toMatchObject({ id: `whatsapp:${'x'.repeat(256)}` });
    for (const bad of bads) {
      expect(() => normaliseWhatsAppEvent(bad, options)).toThrow(expect.objectContaining({ code: 'channel.invalid' }) as unknown);
    }
  });

  // Counterexamples found by normalise.properties.test.ts: a TypeError, or a malformed injection.
  it.each([
    ['a group of null (was a TypeError)', { group: null }],
    ['a group without an id (was the key "group:undefined")', { group: new Map() }],
    ['a profile name that is not a string', { profileName: {} }],
    ['an attachment of null (was a TypeError)', { attachments: [null] }],
    ['a note that is not a string', { notes: [7] }],
    ['a receivedAt that is no time (the intake\'s service window read it as a date)', { receivedAt: 'soon' }],
  ])('refuses %s with channel.invalid', (_name, change) => {
    expect(() => normaliseWhatsAppEvent({ ...message(), ...change }, options)).toThrow(expect.objectContaining({ code: 'channel.invalid' }) as unknown);
  });
});

