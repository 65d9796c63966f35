import { describe, expect, it } from 'vitest';
import { normaliseSmsEvent } from './normalise.ts';

const options = { people: [], tenantId: 'tenant-1' };
const event = {
  type: 'sms',
  messageSid: `SM${'a'.repeat(32)}`,
  idempotencyToken: 'token-1',
  from: '+447700900123',
  to: '+15005550006',
  body: 'Hello',
  attachments: [{ artifactId: 'art-1', name: 'media-1.jpg', mimeType: 'image/jpeg', sizeBytes: 1024 }],
  notes: ['(The picture or file media-2.png could not be fetched.)'],
  receivedAt: '2026-03-01T12:00:00.000Z',
};

describe('normaliseSmsEvent', () => {
  it("takes a text for the sender's own typed words", () => {
    expect(normaliseSmsEvent(event, options).content).toEqual({ source: 'typed', trusted: true });
  });

  it('lists the kept media and the notes under the text', () => {
    expect(normaliseSmsEvent(event, options).text).toBe(
      'Hello\n\n[attached: media-1.jpg, image/jpeg, 0.0 MB, artifact art-1]\n\n(The picture or file media-2.png could not be fetched.)',
    );
  });

  // Counterexamples found by normalise.properties.test.ts: a TypeError, or a malformed injection.
  it.each([
    ['an attachment of null (was a TypeError)', { attachments: [null] }],
    ['an attachment without a size', { attachments: [{ artifactId: 'a', name: 'n', mimeType: 'image/png' }] }],
    ['a note that is not a string', { notes: [['deeply', ['nested']]] }],
    ['an idempotency token that is an object (was the id "sms:[object Object]")', { idempotencyToken: JSON.parse('{"__proto__":{"polluted":"yes"}}') as unknown }],
    ['a receivedAt that is no time', { receivedAt: '' }],
  ])('refuses %s with channel.invalid', (_name, change) => {
    expect(() => normaliseSmsEvent({ ...event, ...change }, options)).toThrow(expect.objectContaining({ code: 'channel.invalid' }));
  });
});
