import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './parse-markdown.ts';
import { renderWhatsApp } from './render-whatsapp.ts';

const whatsapp = (markdown: string): string => renderWhatsApp(parseMarkdown(markdown));

describe('renderWhatsApp', () => {
  it("uses WhatsApp's own markers", () => {
    expect(whatsapp('**bold** __bold__ *it* _it_ ~~strike~~ `mono`')).toBe('*bold* *bold* _it_ _it_ ~strike~ ```mono```');
  });

  it('never doubles markers and keeps spaces outside them', () => {
    expect(whatsapp('***both*** and **bold *with it* inside**')).toBe('_*both*_ and *bold _with it_ inside*');
    expect(whatsapp('# **Already bold** title')).toBe('*Already bold title*');
  });

  it('writes headings as bold lines and lists as lines', () => {
    expect(whatsapp('## Day 1\n\n- Fly\n  - LHR → CDG\n1. Eat')).toBe('*Day 1*\n- Fly\n  - LHR → CDG\n\n1. Eat');
  });

  it('writes links as label: url', () => {
    expect(whatsapp('Book on [**Aurora**](https://aurora.example/b) or https://x.example')).toBe(
      'Book on *Aurora*: https://aurora.example/b or https://x.example',
    );
  });

  it('fences code blocks and quotes with >', () => {
    expect(whatsapp('```js\nlet a = 1;\n```\n\n> one\n>\n> two')).toBe('```\nlet a = 1;\n```\n\n> one\n>\n> two');
  });

  it('writes tables as lines and drops raw HTML tags', () => {
    expect(whatsapp('| A | B |\n|---|---|\n| 1 | *2* |\n\n<div>x <b>y</b></div>')).toBe('A: 1, B: _2_\n\nx y');
  });
});
