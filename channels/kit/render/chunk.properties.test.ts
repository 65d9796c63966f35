import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText } from './chunk.ts';
import type { Numbering } from './chunk.ts';
import { smsSegmentCount, smsSegments } from './sms-segments.ts';

const word = fc.oneof(
  fc.constantFrom('flight', 'Lisbon', 'café', '£94', '€112', 'gate', '—', 'it’s', '👋', '🇵🇹', 'a', 'x&y', '[1]', '{ok}'),
  // No `<`: a `<url|label>` run is one word (a Slack link) and may hold spaces.
  fc.string({ minLength: 1, maxLength: 12 }).map((text) => text.replace(/[\s<]/g, '') || 'w'),
);
const url = fc.webUrl({ withQueryParameters: true }).filter((text) => text.length <= 60);
const sentence = fc.array(fc.oneof({ weight: 6, arbitrary: word }, { weight: 1, arbitrary: url }), { minLength: 1, maxLength: 25 }).map(
  (words) => `${words.join(' ')}.`,
);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 5 }).map((sentences) => sentences.join(' '));
const code = fc.array(fc.string({ maxLength: 40 }).map((line) => line.replace(/[\n`]/g, '')), { minLength: 1, maxLength: 8 }).map(
  (lines) => `\`\`\`\n${lines.join('\n')}\n\`\`\``,
);
const text = fc.array(fc.oneof({ weight: 4, arbitrary: paragraph }, { weight: 1, arbitrary: code }), { minLength: 1, maxLength: 8 }).map((blocks) =>
  blocks.join('\n\n'),
);
const numbering = fc.constantFrom<Numbering>('prefix', 'suffix', 'none');

const squash = (value: string): string => value.replace(/```/g, '').replace(/\s+/g, '');
const unlabel = (chunk: string): string => chunk.replace(/^\(\d+\/\d+\)[ \n]/, '').replace(/[ \n]\(\d+\/\d+\)$/, '');

describe('chunkText properties', () => {
  it('every chunk is within its character limit, numbered 1..n, and nothing is lost', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 70, max: 600 }), numbering, (input, maxChars, style) => {
        const chunks = chunkText(input, { maxChars, numbering: style });
        for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(maxChars);
        if (chunks.length > 1 && style !== 'none') {
          chunks.forEach((chunk, index) => {
            expect(chunk).toContain(`(${index + 1}/${chunks.length})`);
          });
        }
        const body = chunks.map((chunk) => (chunks.length > 1 && style !== 'none' ? unlabel(chunk) : chunk)).join('');
        expect(squash(body)).toBe(squash(input));
      }),
      { numRuns: 300 },
    );
  });

  it('never splits a URL that fits the limit, and keeps code fences balanced', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 80, max: 600 }), (input, maxChars) => {
        const chunks = chunkText(input, { maxChars });
        const urls = input.match(/https?:\/\/\S+/g) ?? [];
        for (const found of urls) expect(chunks.some((chunk) => chunk.includes(found))).toBe(true);
        for (const chunk of chunks) expect((chunk.match(/^```$/gm) ?? []).length % 2).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('every chunk is within its limit in SMS segments', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 6 }), numbering, (input, maxSegments, style) => {
        for (const chunk of chunkText(input, { maxChars: maxSegments, countFn: smsSegmentCount, numbering: style })) {
          expect(smsSegments(chunk).segments).toBeLessThanOrEqual(maxSegments);
        }
      }),
      { numRuns: 200 },
    );
  });
});
