import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, brokenFrom, FUZZ_PEOPLE, isoTime, nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectInjectionOrRefusal, expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { normaliseSlackEvent } from './normalise.ts';
import type { SlackApprovalClick, SlackMessageEvent } from './slack-event.ts';

useFuzzGuards();

const options = { people: FUZZ_PEOPLE, tenantId: 'tenant-1' };
const id = (prefix: string): fc.Arbitrary<string> => fc.oneof(fc.constant(`${prefix}0ADA`), fc.stringMatching(/^[A-Z0-9]{1,11}$/).map((rest) => `${prefix}${rest}`));
const ts = fc.tuple(fc.nat({ max: 2_000_000_000 }), fc.nat({ max: 999_999 })).map(([seconds, micros]) => `${seconds}.${String(micros).padStart(6, '0')}`);

const message: fc.Arbitrary<SlackMessageEvent> = fc
  .record(
    { eventId: fc.stringMatching(/^Ev[A-Z0-9]{8,12}$/), teamId: id('T'), channel: id('C'), user: id('U'), ts, threadTs: ts, text: nastyString, notes: fc.array(nastyString, { maxLength: 2 }), receivedAt: isoTime, via: fc.constant('socket' as const) },
    { requiredKeys: ['eventId', 'teamId', 'channel', 'user', 'ts', 'text', 'notes', 'receivedAt'] },
  )
  .map((event) => ({ ...event, type: 'slack-message' as const }));

const click: fc.Arbitrary<SlackApprovalClick> = fc
  .record(
    {
      actionTs: ts, teamId: id('T'), user: id('U'), channel: id('C'), messageTs: ts, threadTs: ts, approvalId: fc.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      decision: fc.constantFrom('granted' as const, 'denied' as const), argsHash: fc.stringMatching(/^[0-9a-f]{64}$/), receivedAt: isoTime, via: fc.constant('socket' as const),
    },
    { requiredKeys: ['actionTs', 'teamId', 'user', 'channel', 'messageTs', 'approvalId', 'decision', 'receivedAt'] },
  )
  .map((event) => ({ ...event, type: 'slack-approval' as const }));

describe('normaliseSlackEvent properties', () => {
  it('turns every valid message and click into a well-formed injection of its thread', () => {
    fc.assert(
      fc.property(fc.oneof(message, click), (event) => {
        const injection = normaliseSlackEvent(event, options);
        expectWellFormedInjection(injection, event);
        const threadTs = event.threadTs ?? (event.type === 'slack-message' ? event.ts : event.messageTs);
        expect(injection.conversationKey).toBe(`${event.teamId}:${event.channel}:${threadTs}`);
        expect(injection.kind).toBe(event.type === 'slack-message' ? 'message' : 'approval-response');
        expect(injection.text).not.toBe('');
      }),
      { numRuns: 1000 },
    );
  });

  it('answers anything else with a well-formed injection or a coded refusal, the same every time', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, brokenFrom(message), brokenFrom(click)), (value) => {
        expectInjectionOrRefusal(() => normaliseSlackEvent(value, options), value);
      }),
      { numRuns: 1000 },
    );
  });
});
