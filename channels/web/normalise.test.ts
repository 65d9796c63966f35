import { describe, expect, it } from 'vitest';
import { normaliseWebAction, normaliseWebMessage } from './normalise.ts';

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
      content: { source: 'typed', trusted: true },
      replyTo: { channel: 'web', address: 'conv-1' },
      receivedAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it('does not trust the words of a sender the route could not verify', () => {
    expect(normaliseWebMessage({ ...event, sender: { id: 'web:b_abc', verified: false } }).content).toEqual({ source: 'typed', trusted: false });
    expect(normaliseWebAction({ ...actionEvent, sender: { id: 'web:b_abc', verified: false } }).content).toEqual({ source: 'ui-action', trusted: false });
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

const actionEvent = {
  conversationId: 'conv-1',
  action: { id: 'press-1', surfaceId: 'flight-results', sourceComponentId: 'book-ba123', name: 'book', context: { flight: 'BA123' } },
  sender: { id: 'web:b_abc', verified: true },
  tenantId: 'tenant-1',
  receivedAt: '2026-03-01T12:00:00.000Z',
};

describe('normaliseWebAction', () => {
  it("builds a user-action injection with only the action's own fields", () => {
    const injection = normaliseWebAction({ ...actionEvent, action: { ...actionEvent.action, timestamp: 'now' } });
    expect(injection).toEqual({
      id: 'web:conv-1:action:press-1',
      kind: 'user-action',
      channel: 'web',
      tenantId: 'tenant-1',
      conversationKey: 'conv-1',
      sender: { id: 'web:b_abc', verified: true },
      text: '[action] book',
      content: { source: 'ui-action', trusted: true },
      data: { surfaceId: 'flight-results', sourceComponentId: 'book-ba123', name: 'book', context: { flight: 'BA123' } },
      replyTo: { channel: 'web', address: 'conv-1' },
      receivedAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it.each([
    ['an action without a context', { action: { id: 'p', surfaceId: 's', name: 'n' } }],
    ['a context holding a Date', { action: { ...actionEvent.action, context: { when: new Date(0) } } }],
    ['a context holding NaN', { action: { ...actionEvent.action, context: { n: Number.NaN } } }],
    ["the approval card's event", { action: { ...actionEvent.action, name: 'approval.decide' } }],
    ['a surface id with a newline', { action: { ...actionEvent.action, surfaceId: 'a\nb' } }],
    ['a bad conversation id', { conversationId: 'a:b' }],
  ])('refuses %s with channel.invalid', (_name, change) => {
    expect(() => normaliseWebAction({ ...actionEvent, ...change })).toThrow(expect.objectContaining({ code: 'channel.invalid' }));
  });

  it('refuses a context that refers to itself instead of walking it forever', () => {
    const context: Record<string, unknown> = {};
    context['self'] = context;
    expect(() => normaliseWebAction({ ...actionEvent, action: { ...actionEvent.action, context } })).toThrow(expect.objectContaining({ code: 'channel.invalid' }));
  });
});
