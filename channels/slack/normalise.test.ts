import { describe, expect, it } from 'vitest';
import { normaliseSlackEvent } from './normalise.ts';

const options = { people: [], tenantId: 'tenant-1' };
const click = {
  type: 'slack-approval',
  actionTs: '1712345678.000200',
  teamId: 'T0ADA',
  user: 'U0ADA',
  channel: 'C0ADA',
  messageTs: '1712345678.000100',
  approvalId: 'AAAAAAAAAAAAAAAAAAAAAA',
  decision: 'granted',
  receivedAt: '2026-03-01T12:00:00.000Z',
};
const message = {
  type: 'slack-message',
  eventId: 'Ev0001',
  teamId: 'T0ADA',
  channel: 'C0ADA',
  user: 'U0ADA',
  ts: '1712345678.000100',
  text: 'hello',
  notes: [],
  receivedAt: '2026-03-01T12:00:00.000Z',
};

describe('normaliseSlackEvent', () => {
  it("takes a message for the user's own typed words and a click for a pressed control, both trusted (Slack verified the user)", () => {
    expect(normaliseSlackEvent(message, options).content).toEqual({ source: 'typed', trusted: true });
    expect(normaliseSlackEvent(click, options).content).toEqual({ source: 'ui-action', trusted: true });
  });

  it('keys a click by the thread of the card it was on', () => {
    expect(normaliseSlackEvent(click, options)).toMatchObject({ conversationKey: 'T0ADA:C0ADA:1712345678.000100', replyTo: { thread: { threadTs: '1712345678.000100' } } });
  });

  // Counterexamples found by normalise.properties.test.ts: each became a malformed injection.
  it.each([
    ['a click whose thread is an object (was the key "T0ADA:C0ADA:[object Object]")', { ...click, threadTs: {} }],
    ['a click without the card\'s ts (was the key "T0ADA:C0ADA:undefined")', { ...click, messageTs: undefined }],
    ['a click whose argsHash is not a string', { ...click, argsHash: 7 }],
    ['a message whose receivedAt is no time', { ...message, receivedAt: false }],
    ['a message whose note is not a string', { ...message, notes: [1] }],
    ['a message with an empty event id (was the id "slack:T0ADA:")', { ...message, eventId: '' }],
  ])('refuses %s with channel.invalid', (_name, event) => {
    expect(() => normaliseSlackEvent(event, options)).toThrow(expect.objectContaining({ code: 'channel.invalid' }));
  });
});
