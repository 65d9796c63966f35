import fc from 'fast-check';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { plainParagraphs } from './parse-markdown.ts';

/** The parser's tree without source positions (the renderers never read them). */
function parsed(text: string): unknown {
  return JSON.parse(JSON.stringify(fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }), (key, value: unknown) => (key === 'position' ? undefined : value)));
}

// Every character that can matter, with the plain ones weighted up so that plain texts come often.
const pieces = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('Lisbon', 'café', 'it’s', 'ok', 'Gate', '94', '2026', 'über', '👋', 'é') },
  { weight: 4, arbitrary: fc.constantFrom(' ', ' ', '\n', '\n\n', '\n\n\n', '.', ',', '?', ':', ';', '"', "'", '/', '%', '$', '€') },
  { weight: 2, arbitrary: fc.constantFrom('-', '_', 'a_b', 'x-y', '__', '--', '_ok_', '-\n') },
  { weight: 1, arbitrary: fc.constantFrom('*', '_', '#', '-', '+', '1.', '2)', '>', '|', '~', '`', '[', ']', '(', ')', '!', '<', '&', '=', '\\', '@', 'www.', 'https://', '    ', '\t', '  \n') },
);
const texts = fc.array(pieces, { minLength: 1, maxLength: 30 }).map((parts) => parts.join(''));

describe('plainParagraphs', () => {
  it('gives the parser\'s own tree whenever it takes a text', () => {
    let taken = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const fast = plainParagraphs(text);
        if (fast === undefined) return;
        taken += 1;
        expect(fast).toEqual(parsed(text));
      }),
      { numRuns: 3000 },
    );
    // The comparison ran on many texts, not on a handful.
    expect(taken).toBeGreaterThan(300);
  });

  it('takes ordinary sentences and paragraphs, and declines anything with syntax', () => {
    expect(plainParagraphs('Looking into it now.')).toBeDefined();
    expect(plainParagraphs('Your flight is booked.\n\nGate 12, boarding at 9:40.')).toBeDefined();
    expect(plainParagraphs('re bench-3_12, a well-known snake_case word')).toBeDefined();
    for (const text of ['**bold**', 'see www.example.com', '1. first', '  indented', 'a  \nb', 'mail ada@example.com', 'x & y', '- item', '_em_', 'a _b_ c', '---', '/\n:-\nLisbon', 'Gate\n:-:']) {
      expect(plainParagraphs(text)).toBeUndefined();
    }
  });

  it('leaves a delimiter row without pipes to the parser, which makes it a table', () => {
    // Found by the property above (seed -355194158): `:-` under a line is a one-column GFM table.
    expect(parsed('/\n:-\nLisbon')).toMatchObject({ children: [{ type: 'table', align: ['left'] }] });
    expect(plainParagraphs('/\n:-\nLisbon')).toBeUndefined();
  });
});
