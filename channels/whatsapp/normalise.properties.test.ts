import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, brokenFrom, FUZZ_PEOPLE, isoTime, nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectInjectionOrRefusal, expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { normaliseWhatsAppEvent } from './normalise.ts';
import type { WhatsAppApprovalEvent, WhatsAppMessageEvent } from './whatsapp-event.ts';

useFuzzGuards();

const options = { people: FUZZ_PEOPLE, tenantId: 'tenant-1' };
const number = fc.oneof(fc.constant('+447700900123'), fc.stringMatching(/^\+[1-9][0-9]{1,14}$/));
const messageId = fc.oneof(fc.stringMatching(/^wamid\.[A-Za-z0-9=]{10,40}$/), fc.stringMatching(/^(true|false)_[0-9]{5,15}@c\.us_[0-9A-F]{10,20}$/));
const attachment = fc.record({ artifactId: fc.stringMatching(/^[A-Za-z0-9_-]{22}$/), name: nastyString, mimeType: fc.constantFrom('image/jpeg', 'audio/ogg'), sizeBytes: fc.nat() });

const message: fc.Arbitrary<WhatsAppMessageEvent> = fc
  .record(
    {
      via: fc.constantFrom('cloud' as const, 'web' as const),
      messageId,
      from: number,
      profileName: nastyString,
      group: fc.record({ id: fc.stringMatching(/^[0-9]{10,20}@g\.us$/), name: nastyString }, { requiredKeys: ['id'] }),
      text: nastyString,
      quotedId: messageId,
      attachments: fc.array(attachment, { maxLength: 2 }),
      notes: fc.array(nastyString, { maxLength: 2 }),
      receivedAt: isoTime,
    },
    { requiredKeys: ['via', 'messageId', 'from', 'text', 'attachments', 'notes', 'receivedAt'] },
  )
  .map((event) => ({ ...event, type: 'whatsapp' as const }));

const approval: fc.Arbitrary<WhatsAppApprovalEvent> = fc
  .record(
    {
      via: fc.constantFrom('cloud' as const, 'web' as const),
      messageId,
      from: number,
      profileName: nastyString,
      approvalId: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      decision: fc.constantFrom('granted' as const, 'denied' as const),
      argsHash: fc.stringMatching(/^[0-9a-f]{64}$/),
      quotedId: messageId,
      receivedAt: isoTime,
    },
    { requiredKeys: ['via', 'messageId', 'from', 'approvalId', 'decision', 'receivedAt'] },
  )
  .map((event) => ({ ...event, type: 'whatsapp-approval' as const }));

describe('normaliseWhatsAppEvent properties', () => {
  it('turns every valid message and button tap into a well-formed injection of its number or group', () => {
    fc.assert(
      fc.property(fc.oneof(message, approval), (event) => {
        const injection = normaliseWhatsAppEvent(event, options);
        expectWellFormedInjection(injection, event);
        expect(injection.id).toBe(`whatsapp:${event.messageId}`);
        const group = event.type === 'whatsapp' ? event.group : undefined;
        expect(injection.conversationKey).toBe(group === undefined ? event.from : `group:${group.id}`);
        expect(injection.replyTo.address).toBe(group?.id ?? event.from);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers anything else with a well-formed injection or a coded refusal, the same every time', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, brokenFrom(message), brokenFrom(approval)), (value) => {
        expectInjectionOrRefusal(() => normaliseWhatsAppEvent(value, options), value);
      }),
      { numRuns: 1000 },
    );
  });
});
