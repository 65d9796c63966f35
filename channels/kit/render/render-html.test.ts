import { describe, expect, it } from 'vitest';
import { sanitise } from './fixtures/checks.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { renderHtml, renderSafeHtml } from './render-html.ts';

const html = (markdown: string): string => renderHtml(parseMarkdown(markdown));

describe('renderHtml', () => {
  it('writes paragraphs, emphasis, code and line breaks', () => {
    expect(html('**b** *i* ~~d~~ `c<d>`  \nnext')).toBe('<p><strong>b</strong> <em>i</em> <del>d</del> <code>c&lt;d&gt;</code><br />next</p>');
  });

  it('maps headings 1-6 to h2-h4', () => {
    expect(html('# a\n\n## b\n\n### c\n\n###### d')).toBe('<h2>a</h2>\n<h3>b</h3>\n<h4>c</h4>\n<h4>d</h4>');
  });

  it('writes tight lists without paragraphs and keeps the start of ordered lists', () => {
    expect(html('- a\n  - b\n- [x] c')).toBe('<ul>\n<li>a\n<ul>\n<li>b</li>\n</ul></li>\n<li>[x] c</li>\n</ul>');
    expect(html('3. x\n4. y')).toBe('<ol start="3">\n<li>x</li>\n<li>y</li>\n</ol>');
    expect(html('- a\n\n- b')).toBe('<ul>\n<li><p>a</p></li>\n<li><p>b</p></li>\n</ul>');
  });

  it('writes tables with thead and tbody', () => {
    expect(html('| A | B |\n|---|---|\n| 1 | |')).toBe(
      '<table>\n<thead>\n<tr><th>A</th><th>B</th></tr>\n</thead>\n<tbody>\n<tr><td>1</td><td></td></tr>\n</tbody>\n</table>',
    );
  });

  it('writes code blocks, quotes and rules', () => {
    expect(html('```js\na && b\n```\n\n> q\n\n---')).toBe('<pre><code>a &amp;&amp; b</code></pre>\n<blockquote>\n<p>q</p>\n</blockquote>\n<hr />');
  });

  it('keeps only http, https and mailto links, and turns images into links', () => {
    expect(html('[a](https://x.example/?q="1"&r=2) [b](javascript:alert(1)) [c](mailto:h@x.example) [d](/rel)')).toBe(
      '<p><a href="https://x.example/?q=%221%22&amp;r=2">a</a> b <a href="mailto:h@x.example">c</a> d</p>',
    );
    expect(html('![map](https://x.example/m.png) ![](https://x.example/n.png) ![px](data:image/gif;base64,AA)')).toBe(
      '<p><a href="https://x.example/m.png">map</a> <a href="https://x.example/n.png">https://x.example/n.png</a> px</p>',
    );
  });

  it('shows raw HTML from the model as escaped text', () => {
    expect(html('<script>alert("x")</script>\n\nHi <img src=x onerror=alert(1)>')).toBe(
      '<p>&lt;script&gt;alert("x")&lt;/script&gt;</p>\n<p>Hi &lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it('opens web chat links in a new tab, safely', () => {
    expect(renderSafeHtml('[a](https://x.example)')).toBe('<p><a href="https://x.example" target="_blank" rel="noopener noreferrer nofollow">a</a></p>');
  });

  it('is left byte-identical by sanitize-html with exactly the allow-list', () => {
    const markdown = [
      '# T & <x>',
      '**b** *i* ~~d~~ `c` "quoted" \'single\' &amp; &copy; café 😀',
      '3. [a](https://x.example/?a=1&b="2") ![i](https://x.example/i.png)\n4. [m](mailto:a@b.example)',
      '| A | B |\n|---|---|\n| 1 | <b>2</b> |',
      '```\n<script>x</script>\n```',
      '> q\n\n---\n\nline  \nbreak',
      '<iframe src="https://evil.example"></iframe>',
    ].join('\n\n');
    const email = renderHtml(parseMarkdown(markdown));
    const web = renderHtml(parseMarkdown(markdown), { newWindowLinks: true });
    expect(sanitise(email)).toBe(email);
    expect(sanitise(web, true)).toBe(web);
  });

  it('would be changed by the sanitiser if raw HTML passed through (the check has teeth)', () => {
    const raw = '<p>Hi <img src="x" onerror="alert(1)"><a href="javascript:alert(1)">x</a></p>';
    expect(sanitise(raw)).not.toBe(raw);
  });
});
