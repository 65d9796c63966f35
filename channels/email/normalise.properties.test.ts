import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, brokenFrom, FUZZ_PEOPLE, isoTime, nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectInjectionOrRefusal, expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import type { EmailEvent } from './email-event.ts';
import { normaliseEmailEvent } from './normalise.ts';

useFuzzGuards();

const BOT = 'bot@example.com';
const options = { people: FUZZ_PEOPLE, tenantId: 'tenant-1', botAddress: BOT };

const address = fc.oneof(fc.constantFrom('ada@example.com', BOT), fc.emailAddress().map((text) => text.toLowerCase()));
const messageId = fc.tuple(fc.stringMatching(/^[a-z0-9.-]{1,20}$/), fc.domain()).map(([local, domain]) => `<${local}@${domain}>`);
const approvalId = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);
const attachment = fc.record({ artifactId: fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/), name: nastyString, mimeType: fc.constantFrom('application/pdf', 'image/png'), sizeBytes: fc.nat() });

const emailEvent: fc.Arbitrary<EmailEvent> = fc
  .record(
    {
      uidValidity: fc.nat(),
      uid: fc.nat(),
      messageId,
      references: fc.array(messageId, { maxLength: 3 }).map((ids) => ids.join(' ')),
      subject: nastyString,
      from: address,
      fromName: nastyString,
      text: nastyString,
      attachments: fc.array(attachment, { maxLength: 2 }),
      verified: fc.boolean(),
      basis: fc.string({ minLength: 1 }),
      approval: fc.oneof(
        fc.record({ approvalId, decision: fc.constantFrom('granted' as const, 'denied' as const) }),
        fc.record({ approvalId, answer: nastyString }, { requiredKeys: ['answer'] }),
      ),
      receivedAt: isoTime,
    },
    { requiredKeys: ['uidValidity', 'uid', 'messageId', 'references', 'subject', 'from', 'text', 'attachments', 'verified', 'basis', 'receivedAt'] },
  )
  .map((event) => ({ ...event, type: 'email' as const, conversationKey: `${event.from} ${event.messageId}` }));

describe('normaliseEmailEvent properties', () => {
  it('turns every valid event into a well-formed injection, or nothing for the bot\'s own mail', () => {
    fc.assert(
      fc.property(emailEvent, (event) => {
        const injection = normaliseEmailEvent(event, options);
        if (event.from === BOT) {
          expect(injection).toBeUndefined();
          return;
        }
        expectWellFormedInjection(injection, event);
        expect(injection.id).toBe(`email:${event.uidValidity}-${event.uid}`);
        expect(injection.kind).toBe(event.approval === undefined ? 'message' : 'approval-response');
        expect(injection.sender.personId).toBe(event.from === 'ada@example.com' ? 'ada' : undefined);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers anything else with a well-formed injection, nothing, or a coded refusal, the same every time', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, brokenFrom(emailEvent)), (value) => {
        expectInjectionOrRefusal(() => normaliseEmailEvent(value, options), value, { mayReturnNothing: true });
      }),
      { numRuns: 1000 },
    );
  });
});
