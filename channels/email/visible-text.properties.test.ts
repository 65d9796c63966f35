import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nastyString, PROTOTYPE_KEYS, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { decodeEntities } from './html-text-entities.ts';
import { htmlToText } from './html-text.ts';
import { visibleReplyText } from './visible-text.ts';

useFuzzGuards();

const markup = fc.constantFrom('<p>', '</p>', '<br>', '<blockquote>', '</blockquote>', '<pre>', '</pre>', '<li>', '<td>', '<script>', '</script>', '<!--', '-->', '<?x', '<!x', '<a title="<>">', '&amp;', '&lt;', '&#x3a;', '&#0;', '&bogus;', '<', '>');
const html = fc.array(fc.oneof(nastyString, markup), { maxLength: 30 }).map((parts) => parts.join(''));
const reply = fc.array(fc.oneof(nastyString, fc.constantFrom('> quoted', 'On Tue, 3 Jun 2025 at 10:04, Bot <bot@example.com> wrote:', '-- ', 'Sent from my iPhone', '-----Original Message-----', 'From: x', 'Sent: y', 'To: z', 'Best regards,', '\ue0001\ue001')), { maxLength: 12 }).map((lines) => lines.join('\n'));

/** Names a character reference may have (`&name;`), with the keys every object inherits among them. */
const referenceName = fc.oneof(
  fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype), ...PROTOTYPE_KEYS).filter((name) => /^[a-zA-Z][a-zA-Z0-9]{1,31}$/.test(name)),
  fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{1,31}$/),
);

describe('visibleReplyText properties', () => {
  it('gives trimmed text without control, invisible or placeholder characters, whatever the bodies', () => {
    fc.assert(
      fc.property(fc.option(fc.oneof(reply, nastyString), { nil: undefined }), fc.option(fc.oneof(html, fc.constant(false as const)), { nil: undefined }), (text, body) => {
        const visible = visibleReplyText({ text, html: body });
        expect(visible).toBe(visible.trim());
        expect(visible).not.toMatch(/[\r\ufeff\u200b\ue000\ue001]/);
        expect(visible).not.toMatch(/[^\P{Cc}\n\t]/u);
        expect(visibleReplyText({ text, html: body })).toBe(visible);
      }),
      { numRuns: 500 },
    );
  });
});

describe('htmlToText properties', () => {
  it('keeps text without markup or references as it is, white space collapsed', () => {
    fc.assert(
      fc.property(nastyString.filter((text) => !/[<&]/.test(text)), (text) => {
        expect(htmlToText(text)).toBe(text.replace(/\s+/g, ' ').trim());
      }),
      { numRuns: 500 },
    );
  });

  it('reads any markup to text, never a tag\'s own name or attributes', () => {
    fc.assert(
      fc.property(html, (input) => {
        const text = htmlToText(input);
        expect(typeof text).toBe('string');
        expect(text).not.toContain('title="');
        expect(htmlToText(input)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('decodeEntities properties', () => {
  it('decodes a named reference to one short text, or leaves it as written', () => {
    fc.assert(
      fc.property(referenceName, (name) => {
        const decoded = decodeEntities(`&${name};`);
        if (decoded !== `&${name};`) expect(Array.from(decoded).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });

  it('decodes a numeric reference to exactly one character', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat({ max: 9_999_999 }).map(String), fc.nat({ max: 0xffffff }).map((code) => `x${code.toString(16)}`)), (reference) => {
        expect(Array.from(decodeEntities(`&#${reference};`))).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });
});
