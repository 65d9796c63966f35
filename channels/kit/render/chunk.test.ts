import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { chunkBlocks, chunkText, splitParagraphs } from './chunk.ts';
import { smsSegmentCount, smsSegments } from './sms-segments.ts';

describe('chunkText', () => {
  it('returns one unnumbered chunk when the text fits, none for blank text', () => {
    expect(chunkText('Short answer.', { maxChars: 100 })).toEqual(['Short answer.']);
    expect(chunkText(' \n\n ', { maxChars: 100 })).toEqual([]);
  });

  it('splits at paragraph boundaries first and numbers the chunks', () => {
    const text = 'First paragraph here.\n\nSecond paragraph here.\n\nThird one.';
    expect(chunkText(text, { maxChars: 51 })).toEqual(['(1/2) First paragraph here.\n\nSecond paragraph here.', '(2/2) Third one.']);
    expect(chunkText(text, { maxChars: 51, numbering: 'suffix' })).toEqual([
      'First paragraph here.\n\nSecond paragraph here. (1/2)',
      'Third one. (2/2)',
    ]);
    expect(chunkText(text, { maxChars: 45, numbering: 'none' })).toEqual(['First paragraph here.\n\nSecond paragraph here.', 'Third one.']);
    expect(chunkText(text, { maxChars: 50 })).toEqual(['(1/2) First paragraph here.', '(2/2) Second paragraph here.\n\nThird one.']);
  });

  it('splits a long paragraph at line, then sentence boundaries', () => {
    expect(chunkText('- one item\n- two item\n- three item', { maxChars: 28 })).toEqual(['(1/2) - one item\n- two item', '(2/2) - three item']);
    expect(chunkText('We land at 9. The hotel is near. Check-in is at 3!', { maxChars: 40 })).toEqual([
      '(1/2) We land at 9. The hotel is near.',
      '(2/2) Check-in is at 3!',
    ]);
  });

  it('splits a long sentence at words', () => {
    expect(chunkText('alpha beta gamma delta epsilon zeta', { maxChars: 20 })).toEqual([
      '(1/3) alpha beta',
      '(2/3) gamma delta',
      '(3/3) epsilon zeta',
    ]);
  });

  it('never splits a URL that fits the limit', () => {
    const url = 'https://bookings.example.com/manage/SB7K2M9Q?token=abc&lang=en';
    const chunks = chunkText(`Manage your booking here: ${url} and enjoy the trip to Lisbon.`, { maxChars: 80 });
    expect(chunks.some((chunk) => chunk.includes(url))).toBe(true);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(80);
  });

  it('keeps a Slack link with spaces in its label whole', () => {
    const link = '<https://x.example/a|the full fare conditions>';
    const chunks = chunkText(`Read ${link} before you book your seats.`, { maxChars: 60 });
    expect(chunks.some((chunk) => chunk.includes(link))).toBe(true);
  });

  it('cuts a word longer than the limit as a last resort, between grapheme clusters', () => {
    const chunks = chunkText('x'.repeat(25), { maxChars: 16, numbering: 'none' });
    expect(chunks).toEqual(['x'.repeat(16), 'x'.repeat(9)]);
    const family = '👨‍👩‍👧';
    expect(chunkText(family.repeat(3), { maxChars: 2 * family.length, numbering: 'none' })).toEqual([family.repeat(2), family]);
  });

  it('keeps a fenced code block whole, or cuts it at lines and re-fences each piece', () => {
    const code = '```\nline one\nline two\nline three\n```';
    expect(chunkText(`Intro paragraph.\n\n${code}`, { maxChars: 50 })).toEqual(['(1/2) Intro paragraph.', `(2/2)\n${code}`]);
    expect(chunkText(code, { maxChars: 30, numbering: 'none' })).toEqual(['```\nline one\nline two\n```', '```\nline three\n```']);
  });

  it('counts the numbering toward the limit, also when the count gains a digit', () => {
    const text = Array.from({ length: 30 }, (_, index) => `Sentence number ${index}.`).join(' ');
    const chunks = chunkText(text, { maxChars: 30 });
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    chunks.forEach((chunk, index) => {
      expect(chunk.length).toBeLessThanOrEqual(30);
      expect(chunk.startsWith(`(${index + 1}/${chunks.length}) `)).toBe(true);
    });
  });

  it('limits chunks in SMS segments with smsSegmentCount', () => {
    const text = Array.from({ length: 12 }, () => 'Your flight leaves at 07:25 from Terminal 5, gate B32 — boarding closes 20 minutes before.').join('\n\n');
    const chunks = chunkText(text, { maxChars: 1, countFn: smsSegmentCount });
    for (const chunk of chunks) expect(smsSegments(chunk).segments).toBe(1);
    expect(chunks.length).toBeGreaterThan(12);
  });

  it('refuses a limit that is not a positive integer or too small for one character', () => {
    expect(() => chunkText('x', { maxChars: 0 })).toThrow(SwitchboardError);
    expect(() => chunkText('x', { maxChars: 1.5 })).toThrow(SwitchboardError);
    expect(() => chunkText('abcdef', { maxChars: 2 })).toThrow(/too small/);
  });
});

describe('splitParagraphs and chunkBlocks', () => {
  it('splits at blank lines but not inside a code fence', () => {
    expect(splitParagraphs('a\nb\n\n\nc\n\n```\nx\n\ny\n```\n\nd')).toEqual(['a\nb', 'c', '```\nx\n\ny\n```', 'd']);
  });

  it('takes given blocks as they are, joining them with a blank line', () => {
    expect(chunkBlocks(['a', '', 'b\n\nc'], { maxChars: 100 })).toEqual(['a\n\nb\n\nc']);
  });
});
