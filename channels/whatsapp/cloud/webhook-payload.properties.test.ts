import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cloudMessage, cloudWebhookBody } from '../../../test/whatsapp/fuzz-cloud.ts';
import { FUZZ_PEOPLE, outcomeOf, useFuzzGuards } from '../../../test/support/fuzz-inputs.ts';
import { expectWellFormedInjection } from '../../../test/support/well-formed-injection.ts';
import { normaliseWhatsAppEvent } from '../normalise.ts';
import { keptName } from './cloud-media.ts';
import { cloudEvent } from './cloud-event.ts';
import { mediumOf, readCloudMessage } from './inbound-message.ts';
import { readCloudWebhook } from './webhook-payload.ts';

useFuzzGuards();

describe('Cloud API webhook reading (properties)', () => {
  it('reads any JSON without throwing, the same every time, into well-typed changes', () => {
    fc.assert(
      fc.property(cloudWebhookBody, (body) => {
        const read = readCloudWebhook(body);
        expect(readCloudWebhook(body)).toEqual(read);
        expect(read.skipped).toBeGreaterThanOrEqual(0);
        for (const change of read.changes) {
          expect(change.phoneNumberId).not.toBe('');
          for (const message of change.messages) for (const field of [message.id, message.from, message.type]) expect(typeof field === 'string' && field !== '').toBe(true);
          for (const contact of change.contacts) expect(contact.waId).not.toBe('');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('turns every message into nothing, a well-formed injection, or a coded refusal the route drops', () => {
    fc.assert(
      fc.property(cloudWebhookBody, (body) => {
        for (const change of readCloudWebhook(body).changes) {
          for (const message of change.messages) {
            const reading = readCloudMessage(message);
            if (reading.kind === 'ignore') continue;
            const event = cloudEvent({ message, reading, contacts: change.contacts, media: { stored: [], notes: [] }, now: new Date('2026-03-01T12:00:00.000Z') });
            const outcome = outcomeOf(() => normaliseWhatsAppEvent(event, { people: FUZZ_PEOPLE, tenantId: 'tenant-1' }));
            if ('refused' in outcome) expect(outcome.refused.code).toBe('channel.invalid');
            else expectWellFormedInjection(outcome.returned, body);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps every medium under its own file name or a kind with a plain extension', () => {
    fc.assert(
      fc.property(cloudMessage, (fields) => {
        const message = readCloudWebhook({ object: 'x', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, messages: [fields] } }] }] }).changes[0]?.messages[0];
        const found = message === undefined ? undefined : mediumOf(message);
        if (found === undefined) return;
        const { name, mimeType } = keptName(found);
        if (found.filename === undefined || found.voice) expect(name).toMatch(/^[a-z-]+\.[a-z0-9]+$/);
        expect(mimeType).toBe(mimeType.trim().toLowerCase());
      }),
      { numRuns: 1000 },
    );
  });
});
