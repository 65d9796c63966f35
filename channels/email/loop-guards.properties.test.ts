import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { automatedMailReason, headerFieldsFromLines } from './loop-guards.ts';

useFuzzGuards();

const name = fc.oneof(
  fc.constantFrom('auto-submitted', 'return-path', 'precedence', 'list-id', 'list-unsubscribe', 'x-autoreply', 'x-auto-response-suppress', 'x-loop', 'from', 'subject'),
  nastyString,
);
const value = fc.oneof(fc.constantFrom('auto-replied', 'no', '<>', ' < > ', 'bulk', 'OOF', 'bot@example.com', 'Bot <BOT@example.com>'), nastyString);
const headers = fc.array(fc.record({ name, value }), { maxLength: 8 });
const address = fc.option(fc.oneof(fc.emailAddress(), fc.constantFrom('noreply@example.com', 'BOUNCES+x@example.com', '"mailer-daemon"@x', 'bot@example.com'), nastyString), { nil: undefined });

describe('loop guard properties', () => {
  it('gives no reason or one log-safe reason, the same every time', () => {
    fc.assert(
      fc.property(headers, address, fc.option(value, { nil: undefined }), fc.array(address.map((each) => each ?? ''), { maxLength: 2 }), (fields, from, returnPath, ownAddresses) => {
        const mail = { headers: fields, from, returnPath, ownAddresses };
        const reason = automatedMailReason(mail);
        if (reason !== undefined) {
          expect(reason).not.toBe('');
          expect(reason).not.toMatch(/\p{Cc}/u);
        }
        expect(automatedMailReason(mail)).toBe(reason);
      }),
      { numRuns: 1000 },
    );
  });

  it('always refuses mail from our own address, whatever its headers', () => {
    fc.assert(
      fc.property(headers, (fields) => {
        expect(automatedMailReason({ headers: fields, from: 'bot@example.com', ownAddresses: ['bot@example.com'] })).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it('reads any header lines as lower-case names and trimmed values', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ key: nastyString, line: fc.oneof(nastyString, fc.tuple(nastyString, nastyString).map(([a, b]) => `${a}:${b}`)) }), { maxLength: 6 }), (lines) => {
        for (const field of headerFieldsFromLines(lines)) {
          expect(field.name).toBe(field.name.toLowerCase());
          expect(field.value).toBe(field.value.trim());
        }
      }),
      { numRuns: 500 },
    );
  });
});
