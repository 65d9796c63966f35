import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyJson, anyValue, brokenFrom, expectSameOutcome, isoTime, nastyString, outcomeOf, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectInjectionOrRefusal, expectWellFormedInjection, injectionProblems } from '../../test/support/well-formed-injection.ts';
import { normaliseWebAction, normaliseWebMessage, type WebActionEvent, type WebMessageEvent } from './normalise.ts';
import { MAX_ACTION_CONTEXT_BYTES } from './web-action.ts';

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

// eslint-disable-next-line no-control-regex -- what an action's names may not hold
const CONTROL = /[\u0000-\u001f\u007f]/;
const printable = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), minLength: 1, maxLength })
    .filter((text) => text.length <= maxLength && !CONTROL.test(text));

const actionEvent: fc.Arbitrary<WebActionEvent> = fc.record({
  conversationId: token,
  action: fc.record(
    {
      id: fc.stringMatching(/^[A-Za-z0-9_-]{1,100}$/),
      surfaceId: printable(256),
      sourceComponentId: printable(256),
      name: printable(100).filter((name) => name.trim() !== '' && name !== 'approval.decide'),
      context: fc.dictionary(fc.oneof(fc.string(), nastyString), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
        .filter((context) => Buffer.byteLength(JSON.stringify(context)) <= MAX_ACTION_CONTEXT_BYTES),
    },
    { requiredKeys: ['id', 'surfaceId', 'name', 'context'] },
  ),
  sender: fc.record({ id: token.map((identity) => `web:b_${identity}`), verified: fc.boolean(), personId: fc.string({ minLength: 1 }), displayName: nastyString }, { requiredKeys: ['id', 'verified'] }),
  tenantId: fc.constantFrom('tenant-1', 'default'),
  receivedAt: isoTime,
});


describe('normaliseWebAction properties', () => {
  it('turns every valid action into a well-formed user-action injection carrying exactly the action', () => {
    fc.assert(
      fc.property(actionEvent, (event) => {
        const injection = normaliseWebAction(event);
        expect(injectionProblems(injection, event)).toEqual([]);
        const { action } = event;
        expect(injection).toMatchObject({ id: `web:${event.conversationId}:action:${action.id}`, kind: 'user-action', conversationKey: event.conversationId, text: `[action] ${action.name}` });
        expect(injection.data).toEqual({ surfaceId: action.surfaceId, ...(action.sourceComponentId === undefined ? {} : { sourceComponentId: action.sourceComponentId }), name: action.name, context: action.context });
        expect(normaliseWebAction(event)).toEqual(injection);
      }),
      { numRuns: 500 },
    );
  });

  it('answers anything else with a well-formed injection or a channel.invalid refusal, the same every time', () => {
    const anyContext = fc.oneof(anyValue, anyJson);
    fc.assert(
      fc.property(fc.oneof(anyValue, brokenFrom(actionEvent), fc.tuple(actionEvent, anyContext).map(([event, context]) => ({ ...event, action: { ...event.action, context } }))), (value) => {
        const first = outcomeOf(() => normaliseWebAction(value));
        if ('refused' in first) expect(first.refused.code).toBe('channel.invalid');
        else expect(injectionProblems(first.returned, value)).toEqual([]);
        expectSameOutcome(first, outcomeOf(() => normaliseWebAction(value)));
      }),
      { numRuns: 1000 },
    );
  });
});
