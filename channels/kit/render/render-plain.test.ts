import { describe, expect, it } from 'vitest';
import { normaliseGsm } from './gsm.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { renderPlain, renderPlainBlocks } from './render-plain.ts';

const plain = (markdown: string, gsm = false): string => renderPlain(parseMarkdown(markdown), { gsm });

describe('renderPlain', () => {
  it('drops emphasis markers and keeps the words', () => {
    expect(plain('**Bold**, __also bold__, *it*, _it_, ~~gone~~ and `code`')).toBe('Bold, also bold, it, it, gone and code');
  });

  it('puts a heading on its own line, directly above the next block', () => {
    expect(plain('# Paris\n\nCold.\n\n## Tips\n\n- Walk')).toBe('Paris\nCold.\n\nTips\n- Walk');
  });

  it('writes lists as lines with nested lists indented two spaces per level', () => {
    expect(plain('* one\n  * two\n    * three\n* four')).toBe('- one\n  - two\n    - three\n- four');
    expect(plain('3. three\n4. four\n   1. sub')).toBe('3. three\n4. four\n  1. sub');
    expect(plain('- [x] done\n- [ ] todo')).toBe('- [x] done\n- [ ] todo');
  });

  it('writes links as label: url, and the address once when label and address agree', () => {
    expect(plain('[Aurora Air](https://aurora.example/a?b=1&c=2)')).toBe('Aurora Air: https://aurora.example/a?b=1&c=2');
    expect(plain('https://aurora.example and www.aurora.example and help@aurora.example')).toBe(
      'https://aurora.example and www.aurora.example and help@aurora.example',
    );
    expect(plain('[mail us](mailto:help@aurora.example?subject=Hi) or [call](tel:+442071234567)')).toBe(
      'mail us: help@aurora.example or call: +442071234567',
    );
    expect(plain('[click](javascript:alert(1)) [guide](/relative)')).toBe('click guide');
  });

  it('writes images as alt: url', () => {
    expect(plain('![Seat map](https://cdn.example/a.png) ![](https://cdn.example/b.png)')).toBe(
      'Seat map: https://cdn.example/a.png https://cdn.example/b.png',
    );
  });

  it('keeps code blocks verbatim without fences', () => {
    expect(plain('Run:\n\n```bash\nls  -la\n  cd x\n```')).toBe('Run:\n\nls  -la\n  cd x');
  });

  it('writes tables as one Header: value line per row', () => {
    expect(plain('| Flight | Price | Note |\n|---|---|---|\n| AU 1021 | £94 | |\n| **MW 304** | £118 | late |')).toBe(
      'Flight: AU 1021, Price: £94\nFlight: MW 304, Price: £118, Note: late',
    );
  });

  it('wraps block quotes in quotation marks and drops thematic breaks', () => {
    expect(plain('> Bags: one.\n> Liquids: 100 ml.\n\n---\n\nOk')).toBe('“Bags: one.\nLiquids: 100 ml.”\n\nOk');
  });

  it('reduces raw HTML to its visible text', () => {
    expect(plain('<script>alert(1)</script>\n\nHi <b>there</b><br>you <img src=x onerror=alert(1)>.')).toBe('Hi there\nyou .');
  });

  it('makes punctuation GSM-7 friendly when asked', () => {
    expect(plain('It’s “fine” — really… 10\u00a0km → Rome', true)).toBe(`It's "fine" - really... 10 km -> Rome`);
    expect(normaliseGsm('a\u200bb\u2011c • d')).toBe('ab-c - d');
  });

  it('gives one string per top-level block', () => {
    expect(renderPlainBlocks(parseMarkdown('a\n\n```\nx\n\ny\n```\n\nb'))).toEqual(['a', 'x\n\ny', 'b']);
  });
});
