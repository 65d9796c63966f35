/**
 * The one line of a reply that may decide: the first non-empty line of the text the person wrote
 * themselves, not what they quoted.
 */

/**
 * Lines that start quoted history or a signature; nothing from such a line on is the person's own
 * text. Covers `On <date>, <name> wrote:`, `-----Original Message-----`, `---------- Forwarded
 * message ---------`, Outlook's underscore rule and `From:` header block, and the `-- ` signature
 * delimiter.
 */
const QUOTE_STARTS: readonly RegExp[] = [
  /^On\s.*\bwrote:?$/i,
  /^-{2,}\s*(?:Original Message|Forwarded message)\s*-{2,}$/i,
  /^_{8,}$/,
  /^From:\s/i,
  /^--\s?$/,
];

/** Zero-width characters and the byte-order mark, which phones and mail clients slip into text. */
const INVISIBLE = /[\u200b\u200c\u200e\u200f\u2060\ufeff]/gu;

/**
 * The first non-empty line of `text` outside quoted material, trimmed; `undefined` when there is
 * none. Lines starting with `>` (after spaces) are quoted and skipped; a quote header (see
 * {@link QUOTE_STARTS}) ends the search.
 */
export function firstVisibleLine(text: string): string | undefined {
  const lines = text.replace(INVISIBLE, '').split(/\r\n|[\n\r\u2028\u2029\u0085]/u);
  for (const raw of lines) {
    const line = raw.replace(/\s+/gu, ' ').trim();
    if (line === '' || line.startsWith('>')) continue;
    if (QUOTE_STARTS.some((start) => start.test(line))) return undefined;
    return line;
  }
  return undefined;
}
