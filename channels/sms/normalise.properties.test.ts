import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, brokenFrom, FUZZ_PEOPLE, isoTime, nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectInjectionOrRefusal, expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { normaliseSmsEvent } from './normalise.ts';
import type { SmsEvent } from './sms-event.ts';

useFuzzGuards();

const options = { people: FUZZ_PEOPLE, tenantId: 'tenant-1' };
const number = fc.oneof(fc.constant('+447700900123'), fc.stringMatching(/^\+[1-9][0-9]{1,14}$/));
const attachment = fc.record({ artifactId: fc.stringMatching(/^[A-Za-z0-9_-]{22}$/), name: nastyString, mimeType: fc.constantFrom('image/jpeg', 'video/mp4'), sizeBytes: fc.nat() });

const smsEvent: fc.Arbitrary<SmsEvent> = fc
  .record(
    {
      messageSid: fc.tuple(fc.constantFrom('SM', 'MM'), fc.stringMatching(/^[0-9a-f]{32}$/)).map(([prefix, hex]) => prefix + hex),
      idempotencyToken: fc.uuid(),
      from: fc.oneof(number, number.map((each) => `whatsapp:${each}`)),
      to: number,
      body: nastyString,
      attachments: fc.array(attachment, { maxLength: 3 }),
      notes: fc.array(nastyString, { maxLength: 2 }),
      receivedAt: isoTime,
    },
    { requiredKeys: ['messageSid', 'from', 'to', 'body', 'attachments', 'notes', 'receivedAt'] },
  )
  .map((event) => ({ ...event, type: 'sms' as const }));

describe('normaliseSmsEvent properties', () => {
  it('turns every valid event into a well-formed injection of its number, never with empty text', () => {
    fc.assert(
      fc.property(smsEvent, (event) => {
        const injection = normaliseSmsEvent(event, options);
        expectWellFormedInjection(injection, event);
        expect(injection.conversationKey).toBe(event.from);
        expect(injection.id).toBe(`sms:${event.idempotencyToken ?? event.messageSid}`);
        expect(injection.text).not.toBe('');
        expect(injection.sender.personId).toBe(/^(whatsapp:)?\+447700900123$/.test(event.from) ? 'ada' : undefined);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers anything else with a well-formed injection or a coded refusal, the same every time', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, brokenFrom(smsEvent)), (value) => {
        expectInjectionOrRefusal(() => normaliseSmsEvent(value, options), value);
      }),
      { numRuns: 1000 },
    );
  });
});
