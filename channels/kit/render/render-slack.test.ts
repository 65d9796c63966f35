import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './parse-markdown.ts';
import { escapeSlack, renderSlack, slackLink } from './render-slack.ts';

const slack = (markdown: string): string => renderSlack(parseMarkdown(markdown));

describe('renderSlack', () => {
  it('uses mrkdwn markers', () => {
    expect(slack('**bold** *it* ~~strike~~ `code`')).toBe('*bold* _it_ ~strike~ `code`');
  });

  it('escapes &, < and > in text and code', () => {
    expect(slack('A & B < C > D `a<b>&c`')).toBe('A &amp; B &lt; C &gt; D `a&lt;b&gt;&amp;c`');
    expect(slack('```\nif (a < b && c > d) {}\n```')).toBe('```\nif (a &lt; b &amp;&amp; c &gt; d) {}\n```');
    expect(escapeSlack('<&>')).toBe('&lt;&amp;&gt;');
  });

  it('writes links as <url|label>, escaping the label and the address', () => {
    expect(slack('[A & B > C](https://x.example/?a=1&b=2)')).toBe('<https://x.example/?a=1&amp;b=2|A &amp; B &gt; C>');
    expect(slack('https://x.example/a and www.y.example')).toBe('<https://x.example/a> and <http://www.y.example|www.y.example>');
    expect(slack('[bad](javascript:alert(1)) [call](tel:+4420)')).toBe('bad call: +4420');
    expect(slackLink('a|b', 'https://x.example/p|q')).toBe('<https://x.example/p%7Cq|a|b>');
  });

  it('writes headings bold, lists with bullets, quotes with >', () => {
    expect(slack('# Trip\n\n- a\n  - b\n    - c\n\n> note')).toBe('*Trip*\n• a\n    ◦ b\n        ▪ c\n\n> note');
  });

  it('shows raw HTML as escaped text, never as tags', () => {
    expect(slack('<script>alert(1)</script>\n\nHi <b>x</b> <i>y</i>')).toBe('Hi x y');
  });
});
