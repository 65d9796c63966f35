import { describe, expect, it } from 'vitest';
import { normaliseWebMessage } from './normalise.ts';

const event = {
  conversationId: 'conv-1',
  text: 'Find me a flight',
  clientMessageId: 'client-1',
  sender: { id: 'web:b_abc', verified: true },
  tenantId: 'tenant-1',
  receivedAt: '2026-03-01T12:00:00.000Z',
};

describe('normaliseWebMessage', () => {
  it('builds the injection of a message, with only the sender\'s own fields', () => {
    const injection = normaliseWebMessage({ ...event, sender: { ...event.sender, displayName: 'Ada', cookie: 'secret' } });
    expect(injection).toEqual({
      id: 'web:conv-1:client-1',
      kind: 'message',
      channel: 'web',
      tenantId: 'tenant-1',
      conversationKey: 'conv-1',
      sender: { id: 'web:b_abc', verified: true, displayName: 'Ada' },
      text: 'Find me a flight',
      replyTo: { channel: 'web', address: 'conv-1' },
      receivedAt: '2026-03-01T12:00:00.000Z',
    });
  });

  // Counterexamples found by normalise.properties.test.ts: each became a malformed injection.
  it.each([
    ['a sender with an empty id', { sender: { id: '', verified: false, personId: ' ' } }],
    ['a sender without `verified`', { sender: { id: 'web:b_abc' } }],
    ['a message id outside its alphabet', { clientMessageId: 'a:b' }],
    ['a receivedAt that is no time', { receivedAt: 'yesterday' }],
    ['an empty tenant', { tenantId: '' }],
  ])('refuses %s with channel.invalid', (_name, change) => {
    expect(() => normaliseWebMessage({ ...event, ...change })).toThrow(expect.objectContaining({ code: 'channel.invalid' }));
  });
});
