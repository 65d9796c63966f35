/**
 * HTML character references for `htmlToText`: numeric ones (`&#52;`, `&#x3a;`) and the named ones
 * replies commonly carry. Unknown names are left as written.
 */

/**
 * The named references decoded, by name (case-sensitive, as in HTML). A Map, not an object: a
 * reference named like an inherited property (`&constructor;`) must stay as written.
 */
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map(Object.entries({
  nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", hellip: '…', mdash: '—', ndash: '–',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', bull: '•', middot: '·',
  copy: '©', reg: '®', trade: '™', euro: '€', pound: '£', shy: '', zwnj: '\u200c', zwj: '\u200d',
  auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö', Uuml: 'Ü', szlig: 'ß', aring: 'å', Aring: 'Å',
  eacute: 'é', egrave: 'è', ecirc: 'ê', agrave: 'à', acirc: 'â', ccedil: 'ç', ntilde: 'ñ', oacute: 'ó', iacute: 'í', uacute: 'ú',
}));

/**
 * `text` with its character references decoded. A numeric reference to no valid code point (0,
 * a surrogate, above U+10FFFF) becomes U+FFFD; an unknown name (`&unknown;`) stays as it is.
 */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (match, body: string) => {
    if (body.startsWith('#')) return codePointText(body.slice(1));
    return NAMED_ENTITIES.get(body) ?? match;
  });
}

/** The character of a decimal (`52`) or hexadecimal (`x3a`) reference, or U+FFFD when it names none. */
function codePointText(reference: string): string {
  const hex = reference.startsWith('x') || reference.startsWith('X');
  const codePoint = hex ? Number.parseInt(reference.slice(1), 16) : Number.parseInt(reference, 10);
  const valid = codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
  return valid ? String.fromCodePoint(codePoint) : '\ufffd';
}
