/**
 * What every test of pass 1 (`visible-text-own-lines.ts`) shares: which lines are `>`-quoted and
 * how long a line may be to be tested as a marker at all.
 */

/** Longest line (in characters) that is tested as an attribution, header or signature line. */
export const MAX_MARKER_LINE = 400;

/** Whether `line` is `>`-quoted (up to three spaces before the `>`). */
export function isQuoted(line: string): boolean {
  return /^ {0,3}>/.test(line);
}

/** Whether the first non-blank line from `index` on is `>`-quoted; false when none is left. */
export function introducesQuote(lines: readonly string[], index: number): boolean {
  for (let next = index; next < lines.length; next += 1) {
    const line = lines[next] ?? '';
    if (line.trim() !== '') return isQuoted(line);
  }
  return false;
}
