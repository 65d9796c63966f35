/**
 * Raw HTML found in a model's text, reduced to the words it shows: text renderers never pass tags on.
 */

const DROPPED_WITH_CONTENT = /<(script|style|iframe|object|embed|template|noscript|textarea|title)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const LINE_BREAK_TAG = /<br\b[^>]*>/gi;
const BLOCK_END_TAG = /<\/(?:p|div|li|tr|h[1-6]|table|ul|ol|blockquote|pre)\s*>/gi;
const ANY_TAG = /<\/?[A-Za-z][^>]*>|<![^>]*>|<\?[^>]*>/g;
const TAG_START = /<(?=[A-Za-z/!?])/g;

const ENTITIES: Readonly<Record<string, string>> = { '&amp;': '&', '&nbsp;': '\u00a0', '&quot;': '"', '&#39;': "'", '&apos;': "'" };

/**
 * The visible text of an HTML fragment: comments and `script`/`style`-like elements with their
 * content removed, `<br>` and block ends as line breaks, every other tag removed, a few harmless
 * entities decoded (`&amp;`, `&nbsp;`, `&quot;`, `&#39;`; never `&lt;`/`&gt;`, which would re-create
 * tags). A stray `<` that could still open a tag is removed. Runs of blank lines collapse to one
 * line break. The result is trimmed unless `inline` (default `false`) is set, so an inline `<br>`
 * still gives its line break.
 *
 * @example
 * htmlAsText('<p>Hi<br>there</p><script>alert(1)</script>'); // 'Hi\nthere'
 */
export function htmlAsText(html: string, inline = false): string {
  const text = html
    .replace(COMMENT, '')
    .replace(DROPPED_WITH_CONTENT, '')
    .replace(LINE_BREAK_TAG, '\n')
    .replace(BLOCK_END_TAG, '\n')
    .replace(ANY_TAG, '')
    .replace(TAG_START, '')
    .replace(/&(?:amp|nbsp|quot|#39|apos);/g, (entity) => ENTITIES[entity] ?? entity);
  const collapsed = text.replace(/[ \t]*\n\s*\n\s*/g, '\n');
  return inline ? collapsed : collapsed.trim();
}
