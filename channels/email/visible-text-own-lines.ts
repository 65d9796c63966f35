/**
 * Pass 1 of `visibleReplyText`: the lines the person wrote, found by what real clients put around
 * them (quotes, attribution lines, Outlook history, signatures).
 */
import { attributionLength } from './visible-text-attribution.ts';
import { startsHistory } from './visible-text-history.ts';
import { introducesQuote, isQuoted } from './visible-text-line-marks.ts';
import { isDeviceSignature, isSignatureDelimiter } from './visible-text-signatures.ts';

/**
 * Keeps the lines the person wrote, trailing white space removed: drops `>` lines, attribution
 * lines that introduce a `>` quote and device signature lines, and stops at history that is not
 * `>`-quoted (an attribution line followed by plain text, an Outlook separator or header block)
 * and at the `-- ` delimiter. Blank lines and separator rules left at the end are dropped.
 *
 * @param lines The body split at `\n` (line ends already normalised).
 */
export function ownLines(lines: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = (lines[index] ?? '').trimEnd();
    if (isQuoted(line)) continue;
    const attribution = attributionLength(lines, index);
    if (attribution > 0) {
      if (!introducesQuote(lines, index + attribution)) break;
      index += attribution - 1;
      continue;
    }
    if (startsHistory(lines, index) || isSignatureDelimiter(line)) break;
    if (!isDeviceSignature(line)) kept.push(line);
  }
  return withoutTrailingRules(kept);
}

/** Drops blank lines and separator rules (`_____`, `-----`) left at the end once history was cut. */
function withoutTrailingRules(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && /^\s*([-_=*~—─]\s*){3,}$|^\s*$/.test(lines[end - 1] ?? '')) end -= 1;
  return lines.slice(0, end);
}
