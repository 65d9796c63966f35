import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { inboundKeyword, smsKeyword } from './keywords.ts';

useFuzzGuards();

const KEYWORDS: Readonly<Record<string, string>> = {
  STOP: 'opt-out', STOPALL: 'opt-out', UNSUBSCRIBE: 'opt-out', CANCEL: 'opt-out', END: 'opt-out', QUIT: 'opt-out', REVOKE: 'opt-out', OPTOUT: 'opt-out',
  START: 'opt-in', UNSTOP: 'opt-in', HELP: 'help', INFO: 'help',
};
const padding = fc.stringMatching(/^[\s.!,;:"'*-]{0,4}$/);
const anyCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((lower) => Array.from(word).map((char, index) => (lower[index] === true ? char.toLowerCase() : char)).join(''));

describe('SMS keyword properties', () => {
  it('reads any text as one of the keywords or none, the same every time, and YES only for an opted-out number', () => {
    fc.assert(
      fc.property(nastyString, fc.boolean(), (text, optedOut) => {
        const keyword = smsKeyword(text, optedOut);
        expect([undefined, 'opt-out', 'opt-in', 'help']).toContain(keyword);
        expect(smsKeyword(text, optedOut)).toBe(keyword);
        if (!optedOut && keyword === 'opt-in') expect(text.toUpperCase()).not.toMatch(/^[\s.!,;:"'*-]*YES[\s.!,;:"'*-]*$/);
      }),
      { numRuns: 1000 },
    );
  });

  it('knows every carrier keyword in any case, between spaces and punctuation', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(KEYWORDS)).chain(anyCase), padding, padding, (word, before, after) => {
        expect(smsKeyword(`${before}${word}${after}`, false)).toBe(KEYWORDS[word.toUpperCase()]);
      }),
      { numRuns: 500 },
    );
  });

  it('asks whether the number opted out only for a YES, and never rejects otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(nastyString, padding.map((pad) => `${pad}yes${pad}`)), fc.boolean(), async (text, optedOut) => {
        const lookups: boolean[] = [];
        const keyword = await inboundKeyword(text, () => {
          lookups.push(optedOut);
          return Promise.resolve(optedOut);
        });
        const asked = lookups.length > 0;
        expect(lookups.length).toBeLessThanOrEqual(1);
        expect(keyword).toBe(smsKeyword(text, asked && optedOut));
        if (asked) expect(smsKeyword(text, true)).toBe('opt-in');
      }),
      { numRuns: 500 },
    );
  });
});
