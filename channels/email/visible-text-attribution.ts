/**
 * Attribution lines ("On Tue, 3 Jun 2025 at 10:04, Grace Hopper <grace@example.com> wrote:") in
 * English, German, French, Spanish, Swedish, Dutch, Italian and Portuguese, also when a client
 * wrapped them over two or three lines.
 */
import { isQuoted, MAX_MARKER_LINE } from './visible-text-line-marks.ts';

/** Attribution lines by language: the opening word, a date (checked apart) and the verb at the end. */
const ATTRIBUTIONS: readonly RegExp[] = [
  /^On\s.*\bwrote\s?:$/i, // On Tue, Jun 3, 2025 at 10:04 AM Grace Hopper <grace@example.com> wrote:
  /^Am\s.*\bschrieb\b.*:$/i, // Am Di., 3. Juni 2025 um 10:04 Uhr schrieb Grace Hopper <grace@example.com>:
  /^Le\s.*\ba\s+écrit\s?:$/i, // Le mar. 3 juin 2025 à 10:04, Grace Hopper <grace@example.com> a écrit :
  /^El\s.*\bescribió\s?:$/i, // El mar, 3 jun 2025 a las 10:04, Grace Hopper (<grace@example.com>) escribió:
  /^(Den\s|\d).*\bskrev\b.*:$/i, // Den tis 3 juni 2025 kl 10:04 skrev Grace Hopper <grace@example.com>:
  /^Op\s.*\b(schreef|geschreven)\b.*:$/i, // Op di 3 jun. 2025 om 10:04 schreef Grace Hopper <grace@example.com>:
  /^Il\s.*\bha\s+scritto\s?:$/i, // Il giorno mar 3 giu 2025 alle ore 10:04 Grace Hopper <…> ha scritto:
  /^Em\s.*\bescreveu\s?:$/i, // Em ter., 3 de jun. de 2025 às 10:04, Grace Hopper <…> escreveu:
];

/** The first word of an attribution line, to try joining it with the lines a client wrapped it onto. */
const ATTRIBUTION_START = /^(On|Am|Le|El|Den|Op|Il|Em)\s/i;

/** Most lines one attribution may be wrapped over. */
const MAX_ATTRIBUTION_LINES = 3;

/**
 * How many lines (1 to 3) an attribution starting at `lines[index]` takes, or 0 when there is
 * none. Lines are joined with a space until the attribution is complete, at most 400 characters
 * together; a blank or `>`-quoted line ends the attempt.
 */
export function attributionLength(lines: readonly string[], index: number): number {
  const first = (lines[index] ?? '').trim();
  if (first.length > MAX_MARKER_LINE || !(ATTRIBUTION_START.test(first) || /^\d/.test(first))) return 0;
  let joined = first;
  for (let count = 1; count <= MAX_ATTRIBUTION_LINES; count += 1) {
    if (isAttribution(joined)) return count;
    const next = (lines[index + count] ?? '').trim();
    if (next === '' || isQuoted(next) || joined.length + next.length > MAX_MARKER_LINE) return 0;
    joined = `${joined} ${next}`;
  }
  return 0;
}

function isAttribution(line: string): boolean {
  return /\d/.test(line) && ATTRIBUTIONS.some((pattern) => pattern.test(line));
}
