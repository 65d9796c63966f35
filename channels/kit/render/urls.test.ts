import { describe, expect, it } from 'vitest';
import { htmlAsText } from './html-as-text.ts';
import { labelIsUrl, linkAsText, phoneNumber, safeUrl } from './urls.ts';

describe('urls', () => {
  it('keeps http, https and mailto URLs, percent-encoding what must not appear raw', () => {
    expect(safeUrl(' https://x.example/a b?q="1"&r=<2>|x ')).toBe('https://x.example/a%20b?q=%221%22&r=%3C2%3E%7Cx');
    expect(safeUrl('HTTPS://x.example/é')).toBe('HTTPS://x.example/%C3%A9');
    expect(safeUrl('https://x.example/100%')).toBe('https://x.example/100%25');
    expect(safeUrl('mailto:a@b.example')).toBe('mailto:a@b.example');
    for (const unsafe of ['javascript:alert(1)', 'data:text/html,x', 'vbscript:x', '/relative', '//x.example', 'ftp://x.example', 'https:']) {
      expect(safeUrl(unsafe)).toBeUndefined();
    }
  });

  it('reads links as text', () => {
    expect(labelIsUrl('www.x.example', 'http://www.x.example')).toBe(true);
    expect(labelIsUrl('x.example', 'https://x.example/')).toBe(true);
    expect(labelIsUrl('Docs', 'https://x.example')).toBe(false);
    expect(linkAsText('Docs', 'https://x.example')).toBe('Docs: https://x.example');
    expect(linkAsText('Docs', 'javascript:x')).toBe('Docs');
    expect(linkAsText('a@b.example', 'mailto:a@b.example')).toBe('a@b.example');
    expect(phoneNumber('tel:+44 20 7123 4567')).toBe('+44 20 7123 4567');
    expect(phoneNumber('tel:javascript')).toBeUndefined();
  });
});

describe('htmlAsText', () => {
  it('keeps the visible words only', () => {
    expect(htmlAsText('<p>Hi<br>there</p><script>alert(1)</script><style>p{}</style><!-- c -->')).toBe('Hi\nthere');
    expect(htmlAsText('<img src=x onerror=alert(1)>ok &amp; &lt;b&gt;')).toBe('ok & &lt;b&gt;');
    expect(htmlAsText('<div class="x"\nunclosed')).toBe('div class="x"\nunclosed');
    expect(htmlAsText('<br>', true)).toBe('\n');
  });
});
