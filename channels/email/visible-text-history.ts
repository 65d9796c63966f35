/**
 * Quoted history that is not `>`-quoted: Outlook's "-----Original Message-----" separator and its
 * "From: … Sent: … To: … Subject:" header block, in the same languages as the attribution lines.
 */
import { MAX_MARKER_LINE } from './visible-text-line-marks.ts';

/** "-----Original Message-----" and its translations (Outlook desktop). */
const ORIGINAL_MESSAGE =
  /^-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Oorspronkelijk bericht|Originalmeddelande|Messaggio originale|Mensagem original)\s*-{2,}$/i;

/** The first line of Outlook's quoted header block ("From:", bold in some clients: "*From:*"). */
const HEADER_FROM = /^\*?(From|Von|De|Van|Da|Från|Fra|Od)\s?:\*?\s/i;

/** The other lines of Outlook's quoted header block, in the same languages. */
const HEADER_OTHER =
  /^\*?(Sent|Date|To|Cc|Subject|Gesendet|Datum|An|Betreff|Envoyé|À|Objet|Enviado|Fecha|Para|Asunto|Verzonden|Aan|Onderwerp|Skickat|Till|Ämne|Inviato|Data|A|Oggetto)\s?:\*?/i;

/** How many lines after "From:" are searched for the other header lines. */
const HEADER_BLOCK_LINES = 8;

/** Whether quoted history that is not `>`-quoted starts at `lines[index]` (Outlook's separator or header block). */
export function startsHistory(lines: readonly string[], index: number): boolean {
  const line = (lines[index] ?? '').trim();
  if (line.length > MAX_MARKER_LINE) return false;
  return ORIGINAL_MESSAGE.test(line) || isHeaderBlock(lines, index);
}

/** A "From:" line followed, before the next blank line and within 8 lines, by two more header lines. */
function isHeaderBlock(lines: readonly string[], index: number): boolean {
  if (!HEADER_FROM.test((lines[index] ?? '').trim())) return false;
  let others = 0;
  for (const line of lines.slice(index + 1, index + 1 + HEADER_BLOCK_LINES)) {
    const trimmed = line.trim();
    if (trimmed === '') break;
    if (trimmed.length <= MAX_MARKER_LINE && HEADER_OTHER.test(trimmed)) others += 1;
  }
  return others >= 2;
}
