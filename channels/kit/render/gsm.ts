/**
 * Typographic characters a model likes (smart quotes, dashes, ellipsis, special spaces) replaced
 * with their GSM-7 friendly ASCII forms, so an SMS does not fall back to UCS-2 (70 characters per
 * segment instead of 160) for a curly apostrophe.
 */

const REPLACEMENTS: readonly (readonly [RegExp, string])[] = [
  [/[\u2018\u2019\u201a\u201b\u2032\u00b4\u02bc]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, ' '],
  [/[\u200b-\u200d\u2060\ufeff\u00ad]/g, ''],
  [/[\u2022\u2023\u25e6\u2043\u25aa\u25cf]/g, '-'],
  [/\u2192/g, '->'],
  [/\u2190/g, '<-'],
  [/\u00d7/g, 'x'],
  [/\u2009/g, ' '],
];

/**
 * `text` with smart quotes as `'` and `"`, hyphens and dashes (en, em, minus) as `-`, the ellipsis
 * as `...`, non-breaking and other special spaces as a space, zero-width characters and soft
 * hyphens removed, bullets as `-`, arrows `→`/`←` as `->`/`<-` and `×` as `x`. Everything else,
 * emoji included, is left as is.
 *
 * @example
 * normaliseGsm('It’s “fine” — really…'); // `It's "fine" - really...`
 */
export function normaliseGsm(text: string): string {
  let out = text;
  for (const [pattern, replacement] of REPLACEMENTS) out = out.replace(pattern, replacement);
  return out;
}
