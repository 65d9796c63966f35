import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SHORT_CODE_ALPHABET } from '../../../src/runtime/approvals/short-code.ts';
import { nastyString, useFuzzGuards } from '../../../test/support/fuzz-inputs.ts';
import { COURTESIES, DECISION_VERBS, parseApprovalReply } from './parse-reply.ts';
import { firstVisibleLine } from './visible-line.ts';

useFuzzGuards();

const REASONS: ReadonlySet<string> = new Set(['empty', 'quoted', 'question', 'no-verb', 'extra-words']);
const LINE_BREAK = /[\n\r\u2028\u2029\u0085]/u;

/** Random case of `word`. */
const anyCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((upper) => Array.from(word).map((char, index) => (upper[index] === true ? char.toUpperCase() : char)).join(''));
const separator = fc.stringMatching(/^[ .,:;!*_#()[\]-]{0,3}$/).map((text) => (text === '' ? ' ' : text));
const code = fc.array(fc.constantFrom(...Array.from(SHORT_CODE_ALPHABET)), { minLength: 6, maxLength: 6 }).map((chars) => chars.join(''));

/** Replies written by the grammar: a verb, maybe a code, maybe a courtesy, between allowed separators. */
const grammatical = fc
  .tuple(fc.constantFrom(...DECISION_VERBS.keys()), fc.option(code, { nil: undefined }), fc.option(fc.constantFrom(...COURTESIES), { nil: undefined }), separator, separator, separator)
  .chain(([verb, shortCode, courtesy, ...gaps]) =>
    fc.tuple(anyCase(verb), fc.option(anyCase(shortCode ?? ''), { nil: undefined }), fc.constant(courtesy), fc.constant(gaps), fc.constant(verb), fc.constant(shortCode)),
  )
  .map(([verb, shortCode, courtesy, [a, b, c], plainVerb, plainCode]) => ({
    text: `${a}${verb}${plainCode === undefined ? '' : ` ${shortCode ?? plainCode}`}${b}${courtesy === undefined ? '' : ` ${courtesy}`}${c}`,
    decision: DECISION_VERBS.get(plainVerb),
    code: plainCode,
  }));

describe('parseApprovalReply properties', () => {
  it('reads any text as a decision with a well-formed code, or as no decision with a known reason, the same every time', () => {
    fc.assert(
      fc.property(nastyString, (text) => {
        const reply = parseApprovalReply(text);
        if (reply.kind === 'decision') {
          expect(['granted', 'denied']).toContain(reply.decision);
          if (reply.code !== undefined) expect(reply.code).toMatch(/^[A-Z0-9]{6}$/);
        } else {
          expect(REASONS.has(reply.reason)).toBe(true);
        }
        expect(parseApprovalReply(text)).toEqual(reply);
      }),
      { numRuns: 700 },
    );
  });

  it('decides every reply the grammar allows, with its decision and code', () => {
    fc.assert(
      fc.property(grammatical, ({ text, decision, code: expected }) => {
        expect(parseApprovalReply(text)).toEqual(expected === undefined ? { kind: 'decision', decision } : { kind: 'decision', decision, code: expected });
      }),
      { numRuns: 700 },
    );
  });

  it('reads only the first visible line: what follows it never changes the result', () => {
    fc.assert(
      fc.property(fc.oneof(nastyString, grammatical.map(({ text }) => text)), nastyString, (line, rest) => {
        fc.pre(!LINE_BREAK.test(line) && firstVisibleLine(line) !== undefined);
        expect(parseApprovalReply(`${line}\n${rest}`)).toEqual(parseApprovalReply(line));
      }),
      { numRuns: 700 },
    );
  });
});
