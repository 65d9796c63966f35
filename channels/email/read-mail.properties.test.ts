import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawMail } from '../../test/email/fuzz-mail.ts';
import { useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { readMail, type MailFacts } from './read-mail.ts';

useFuzzGuards();

const options = { fallbackMessageId: '<uid-7-42@imap.invalid>' };

/** Everything wrong with `facts` as {@link MailFacts}. */
function factProblems(facts: MailFacts): string[] {
  const strings = (list: readonly unknown[]): boolean => list.every((item) => typeof item === 'string');
  return [
    ...(typeof facts.messageId === 'string' && facts.messageId !== '' ? [] : ['messageId']),
    ...(facts.inReplyTo === undefined || typeof facts.inReplyTo === 'string' ? [] : ['inReplyTo']),
    ...(Array.isArray(facts.references) && strings(facts.references) ? [] : ['references']),
    ...(typeof facts.subject === 'string' ? [] : ['subject']),
    ...(facts.from === undefined || (facts.from.includes('@') && facts.from === facts.from.trim().toLowerCase()) ? [] : ['from']),
    ...(facts.fromName === undefined || typeof facts.fromName === 'string' ? [] : ['fromName']),
    ...(typeof facts.text === 'string' && facts.text === facts.text.trim() ? [] : ['text']),
    ...(facts.attachments.every((file) => typeof file.name === 'string' && file.name !== '' && typeof file.mimeType === 'string' && Buffer.isBuffer(file.bytes)) ? [] : ['attachments']),
    ...(facts.headers.every((field) => typeof field.name === 'string' && typeof field.value === 'string' && field.name === field.name.toLowerCase()) ? [] : ['headers']),
  ];
}

describe('readMail properties', () => {
  it('reads any bytes as well-typed facts, never rejecting, the same every time', async () => {
    await fc.assert(
      fc.asyncProperty(rawMail, async (raw) => {
        const facts = await readMail(raw, options);
        expect(factProblems(facts)).toEqual([]);
        expect(await readMail(raw, options)).toEqual(facts);
      }),
      { numRuns: 200 },
    );
  });
});
