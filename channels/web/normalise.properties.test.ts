import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, brokenFrom, isoTime, nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectInjectionOrRefusal, expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { normaliseWebMessage, type WebMessageEvent } from './normalise.ts';

useFuzzGuards();

const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

const webEvent: fc.Arbitrary<WebMessageEvent> = fc.record(
  {
    conversationId: token,
    text: nastyString,
    clientMessageId: fc.stringMatching(/^[A-Za-z0-9_-]{1,100}$/),
    sender: fc.record({ id: token.map((identity) => `web:b_${identity}`), verified: fc.boolean(), personId: fc.string({ minLength: 1 }), displayName: nastyString }, { requiredKeys: ['id', 'verified'] }),
    tenantId: fc.constantFrom('tenant-1', 'default'),
    receivedAt: isoTime,
  },
  { requiredKeys: ['conversationId', 'text', 'sender', 'tenantId', 'receivedAt'] },
);

describe('normaliseWebMessage properties', () => {
  it('turns every valid event into a well-formed injection of its conversation', () => {
    fc.assert(
      fc.property(webEvent, (event) => {
        const injection = normaliseWebMessage(event);
        expectWellFormedInjection(injection, event);
        expect(injection.conversationKey).toBe(event.conversationId);
        expect(injection.text).toBe(event.text);
        if (event.clientMessageId !== undefined) expect(injection.id).toBe(`web:${event.conversationId}:${event.clientMessageId}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers anything else with a well-formed injection or a coded refusal, the same every time', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, brokenFrom(webEvent)), (value) => {
        // Without a client message id the injection's id is random, so only a refusal must repeat.
        const withId = typeof value === 'object' && value !== null && typeof (value as { clientMessageId?: unknown }).clientMessageId === 'string';
        expectInjectionOrRefusal(() => normaliseWebMessage(value), value, { repeatable: withId });
      }),
      { numRuns: 1000 },
    );
  });
});
