import { describe, expect, it } from 'vitest';
import { decodeEntities } from './html-text-entities.ts';
import { htmlToText } from './html-text.ts';

/** HTML and the text `htmlToText` makes of it. */
const CONVERSIONS: readonly (readonly [what: string, html: string, text: string])[] = [
  ['blockquote lines get "> " per level, blank lines stay bare', '<p>Yes &amp; thanks</p><blockquote>Book it?<blockquote>Earlier</blockquote></blockquote>', 'Yes & thanks\n\n> Book it?\n\n> > Earlier\n'],
  ['table cells share a line, list items get their own', '<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table><ol><li>one<li>two</ol>', 'a b\nc\n\n- one\n- two\n'],
  ['skipped elements in any case; a stray closing tag', '<SCRIPT>x</script>a</blockquote>b<STYLE type="text/css">p{}</STYLE >c', 'a\n\nbc'],
  ['a ">" in a quoted attribute value', `<a title='1 > 0' href="x>y">link</a>`, 'link'],
];

describe('htmlToText', () => {
  it.each(CONVERSIONS)('%s', (_what, html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});

describe('decodeEntities', () => {
  it('decodes numeric references, known names, and U+FFFD for references to no character', () => {
    const decoded = ['&#52;&#x3a;&#X1F600;&Auml;&shy;', '&#0;&#xD800;&#x110000;'].map(decodeEntities);
    expect(decoded).toEqual(['4:😀Ä', '\ufffd\ufffd\ufffd']);
  });

  it('keeps unknown names and stray ampersands as written', () => {
    const kept = '&AUML; &unknown; & amp;';
    expect(decodeEntities(kept)).toBe(kept);
  });

  it('keeps names of inherited object properties as written', () => {
    // Counterexample found by visible-text.properties.test.ts: it was decoded to "function Object() { [native code] }".
    expect(decodeEntities('&constructor; &toString;')).toBe('&constructor; &toString;');
    expect(htmlToText('<p>&hasOwnProperty;</p>')).toBe('&hasOwnProperty;\n');
  });
});
