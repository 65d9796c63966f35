/**
 * The words a person wrote in an email reply, without the quoted history, the attribution lines
 * ("On … wrote:") and the signatures that mail clients put around them.
 *
 * Three passes over the text/plain body:
 * 1. our own line pass removes what real clients produce and `email-reply-parser` misses: `>` lines
 *    anywhere (so bottom-posted and inline answers survive), attribution lines also when wrapped
 *    over two or three lines and in German, French, Spanish, Swedish, Dutch, Italian and Portuguese,
 *    Outlook's "From: … Sent: … To: … Subject:" block and "-----Original Message-----" separator,
 *    the `-- ` signature delimiter and "Sent from my iPhone"-style device lines;
 * 2. `email-reply-parser` hides what it knows on top (sign-offs such as "Best regards," and the
 *    attribution lines of further languages);
 * 3. blank lines are tidied and the result trimmed.
 *
 * When a message has no text/plain part, its HTML is turned into text first by the small converter
 * at the end of this file (no dependency: `html-to-text` is only a dependency of `mailparser`).
 */
import EmailReplyParser from 'email-reply-parser';

/** The bodies of a received message, as `mailparser`'s `simpleParser` gives them. */
export interface ReplyBody {
  /** The text/plain body. Used whenever it has any non-blank character. */
  readonly text?: string | undefined;
  /** The text/html body. Only read when there is no usable {@link ReplyBody.text}. */
  readonly html?: string | false | undefined;
}

/**
 * The text a person wrote in an email reply: quoted history, attribution lines and signatures
 * removed, trimmed. An empty string when nothing of their own is left (e.g. a reply that only
 * quotes).
 *
 * Note that `simpleParser` already derives `text` from the HTML when a message has no text/plain
 * part (unless `skipHtmlToText` is set); the HTML fallback here is for everything else.
 *
 * @example
 * visibleReplyText({ text: 'APPROVE\n\nOn Tue, 3 Jun 2025 at 10:04, Bot <bot@example.com> wrote:\n> Approve?' });
 * // → 'APPROVE'
 */
export function visibleReplyText(input: ReplyBody): string {
  const plain = normalise(bodyText(input));
  const own = ownLines(plain.split('\n'));
  return tidy(withReplyParser(own.join('\n')));
}

function bodyText(input: ReplyBody): string {
  if (input.text !== undefined && input.text.trim() !== '') return input.text;
  return typeof input.html === 'string' ? htmlToText(input.html) : '';
}

/**
 * Line ends to `\n`; no-break spaces to spaces; byte-order marks, zero-width spaces, control
 * characters other than tab and newline, and the two private-use characters of the parser's
 * placeholders removed.
 */
function normalise(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ')
    .replace(/[\ufeff\u200b\ue000\ue001]/g, '')
    .replace(/[^\P{Cc}\n\t]/gu, '');
}

function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Pass 1: the lines the person wrote
// ---------------------------------------------------------------------------------------------

/** Longest line (in characters) that is tested as an attribution or header line. */
const MAX_MARKER_LINE = 400;

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

/** "-----Original Message-----" and its translations (Outlook desktop). */
const ORIGINAL_MESSAGE =
  /^-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Oorspronkelijk bericht|Originalmeddelande|Messaggio originale|Mensagem original)\s*-{2,}$/i;

/** The first line of Outlook's quoted header block ("From:", bold in some clients: "*From:*"). */
const HEADER_FROM = /^\*?(From|Von|De|Van|Da|Från|Fra|Od)\s?:\*?\s/i;

/** The other lines of Outlook's quoted header block, in the same languages. */
const HEADER_OTHER =
  /^\*?(Sent|Date|To|Cc|Subject|Gesendet|Datum|An|Betreff|Envoyé|À|Objet|Enviado|Fecha|Para|Asunto|Verzonden|Aan|Onderwerp|Skickat|Till|Ämne|Inviato|Data|A|Oggetto)\s?:\*?/i;

/** One line each that mobile and webmail clients append ("Sent from my iPhone", "Get Outlook for iOS"). */
const DEVICE_SIGNATURES: readonly RegExp[] = [
  /^Sent from my \S[^,;:!?]{0,40}$/i,
  /^Sent (from|with) (Outlook|Mail|Yahoo Mail|AOL|Proton ?Mail|Gmail)\b[^,;:!?]{0,40}$/i,
  /^Get Outlook for (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^Von meinem \S[^,;:!?]{0,40} gesendet\.?$/i,
  /^Gesendet von meinem \S[^,;:!?]{0,40}$/i,
  /^Outlook für (iOS|Android) beziehen(\s*<[^<>\s]*>)?$/i,
  /^Envoyé (de|depuis) mon \S[^,;:!?]{0,40}$/i,
  /^(Obtenir|Télécharger) Outlook pour (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^Enviado desde mi \S[^,;:!?]{0,40}$/i,
  /^Obtener Outlook para (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^Skickat från min \S[^,;:!?]{0,40}$/i,
  /^Hämta Outlook för (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^(Verzonden|Verstuurd) (vanaf|met) mijn \S[^,;:!?]{0,40}$/i,
  /^Inviato da(l mio)? (iPhone|iPad|Android|Samsung|Outlook)[^,;:!?]{0,40}$/i,
];

/**
 * Keeps the lines the person wrote: drops `>` lines, attribution lines that introduce a `>` quote
 * and device signature lines, and stops at history that is not `>`-quoted (an attribution line
 * followed by plain text, an Outlook separator or header block) and at the `-- ` delimiter.
 */
function ownLines(lines: readonly string[]): string[] {
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

function isQuoted(line: string): boolean {
  return /^ {0,3}>/.test(line);
}

/** How many lines (1 to 3) an attribution starting at `index` takes, or 0 when there is none. */
function attributionLength(lines: readonly string[], index: number): number {
  const first = (lines[index] ?? '').trim();
  if (first.length > MAX_MARKER_LINE || !(ATTRIBUTION_START.test(first) || /^\d/.test(first))) return 0;
  let joined = first;
  for (let count = 1; count <= 3; count += 1) {
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

/** Whether the first non-blank line from `index` on is `>`-quoted. */
function introducesQuote(lines: readonly string[], index: number): boolean {
  for (let next = index; next < lines.length; next += 1) {
    const line = lines[next] ?? '';
    if (line.trim() !== '') return isQuoted(line);
  }
  return false;
}

/** Whether quoted history that is not `>`-quoted starts at `index` (Outlook's separator or header block). */
function startsHistory(lines: readonly string[], index: number): boolean {
  const line = (lines[index] ?? '').trim();
  if (line.length > MAX_MARKER_LINE) return false;
  return ORIGINAL_MESSAGE.test(line) || isHeaderBlock(lines, index);
}

/** A "From:" line followed, before the next blank line and within 8 lines, by two more header lines. */
function isHeaderBlock(lines: readonly string[], index: number): boolean {
  if (!HEADER_FROM.test((lines[index] ?? '').trim())) return false;
  let others = 0;
  for (const line of lines.slice(index + 1, index + 9)) {
    const trimmed = line.trim();
    if (trimmed === '') break;
    if (trimmed.length <= MAX_MARKER_LINE && HEADER_OTHER.test(trimmed)) others += 1;
  }
  return others >= 2;
}

/** `-- ` (RFC 3676) or `--`: everything below is the signature. */
function isSignatureDelimiter(line: string): boolean {
  return line.trimEnd() === '--';
}

function isDeviceSignature(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= MAX_MARKER_LINE && DEVICE_SIGNATURES.some((pattern) => pattern.test(trimmed));
}

/** Drops blank lines and separator rules (`_____`, `-----`) left at the end once history was cut. */
function withoutTrailingRules(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && /^\s*([-_=*~—─]\s*){3,}$|^\s*$/.test(lines[end - 1] ?? '')) end -= 1;
  return lines.slice(0, end);
}

// ---------------------------------------------------------------------------------------------
// Pass 2: email-reply-parser
// ---------------------------------------------------------------------------------------------

/**
 * Above this many characters the parser is skipped: some of its patterns (Dutch "Op … schreef",
 * Scandinavian "… skrev") span lines and backtrack polynomially, about 0.2 s at this size on text
 * built for it and 1 s at twice the size. Pass 1 has already removed the history, so what is left
 * is rarely this long; when it is, only the parser's sign-off detection is lost.
 */
const PARSER_MAX_CHARS = 4_000;

/** Lines longer than this (in characters) are hidden from the parser behind a placeholder, for the same reason. */
const PARSER_MAX_LINE = 300;

/** Stands for a hidden long line: U+E000, the line's index, U+E001 (both removed from the input first). */
const PLACEHOLDER = /\ue000(\d+)\ue001/g;

function withReplyParser(text: string): string {
  if (text.length > PARSER_MAX_CHARS) return text;
  const long: string[] = [];
  const masked = text
    .split('\n')
    .map((line) => (line.length > PARSER_MAX_LINE ? `\ue000${String(long.push(line) - 1)}\ue001` : line))
    .join('\n');
  const visible = new EmailReplyParser().read(masked).getVisibleText();
  return visible.replace(PLACEHOLDER, (_match, index: string) => long[Number(index)] ?? '');
}

// ---------------------------------------------------------------------------------------------
// HTML to text, for messages without a text/plain part
// ---------------------------------------------------------------------------------------------

/** Elements whose content is never text. */
const SKIPPED_ELEMENTS = new Set(['head', 'script', 'style', 'title', 'template', 'noscript', 'svg', 'object']);

/** Elements that end a paragraph (a blank line around them). */
const PARAGRAPH_ELEMENTS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'ul', 'ol', 'table', 'pre', 'blockquote', 'dl']);

/** Elements that end a line. */
const LINE_ELEMENTS = new Set(['br', 'div', 'li', 'tr', 'section', 'article', 'header', 'footer', 'address', 'center', 'dt', 'dd', 'figure', 'main', 'nav', 'aside', 'form', 'fieldset']);

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", hellip: '…', mdash: '—', ndash: '–',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', bull: '•', middot: '·',
  copy: '©', reg: '®', trade: '™', euro: '€', pound: '£', shy: '', zwnj: '\u200c', zwj: '\u200d',
  auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö', Uuml: 'Ü', szlig: 'ß', aring: 'å', Aring: 'Å',
  eacute: 'é', egrave: 'è', ecirc: 'ê', agrave: 'à', acirc: 'â', ccedil: 'ç', ntilde: 'ñ', oacute: 'ó', iacute: 'í', uacute: 'ú',
};

/** The text being built: finished lines with their blockquote depth, and the line in progress. */
interface TextSink {
  readonly lines: { readonly depth: number; readonly text: string }[];
  current: string;
  depth: number;
  preformatted: number;
}

/**
 * HTML to plain text, in one linear scan (no regular expression over the whole document):
 * scripts, styles and comments dropped, block elements to line breaks, `<blockquote>` content
 * prefixed with `> ` per level so pass 1 removes it like any quote, entities decoded. Markup is
 * never kept: the result is text only.
 */
function htmlToText(html: string): string {
  const sink: TextSink = { lines: [], current: '', depth: 0, preformatted: 0 };
  let position = 0;
  while (position < html.length) {
    const open = html.indexOf('<', position);
    const textEnd = open === -1 ? html.length : open;
    if (textEnd > position) addText(sink, html.slice(position, textEnd));
    if (open === -1) break;
    position = readMarkup(sink, html, open);
  }
  endLine(sink);
  return sink.lines.map((line) => (line.text === '' ? '' : '> '.repeat(line.depth) + line.text)).join('\n');
}

/** Handles the markup at `open` (a `<`); returns where scanning goes on. */
function readMarkup(sink: TextSink, html: string, open: number): number {
  if (html.startsWith('<!--', open)) return skipPast(html, '-->', open + 4);
  const next = html.charAt(open + 1);
  if (next === '!' || next === '?') return skipPast(html, '>', open + 2);
  if (!/[a-zA-Z/]/.test(next)) {
    addText(sink, '<');
    return open + 1;
  }
  const closing = next === '/';
  const name = /^[a-zA-Z][a-zA-Z0-9-]*/.exec(html.slice(open + (closing ? 2 : 1), open + 40))?.[0].toLowerCase() ?? '';
  const end = tagEnd(html, open + 1);
  if (!closing && SKIPPED_ELEMENTS.has(name)) return skipElement(html, name, end);
  applyTag(sink, name, closing);
  return end;
}

/** The index after the `>` that closes the tag starting before `from`, honouring quoted attribute values. */
function tagEnd(html: string, from: number): number {
  let quote = '';
  for (let index = from; index < html.length; index += 1) {
    const char = html.charAt(index);
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '>') {
      return index + 1;
    }
  }
  return html.length;
}

function skipPast(html: string, marker: string, from: number): number {
  const found = html.indexOf(marker, from);
  return found === -1 ? html.length : found + marker.length;
}

/** Skips to after `</name>` (case-insensitive), or to the end when the element is never closed. */
function skipElement(html: string, name: string, from: number): number {
  const closing = new RegExp(`</${name}\\b`, 'gi');
  closing.lastIndex = from;
  const found = closing.exec(html);
  return found === null ? html.length : tagEnd(html, found.index + 2);
}

function applyTag(sink: TextSink, name: string, closing: boolean): void {
  if (name === 'br') {
    endLine(sink, true);
  } else if (name === 'blockquote') {
    endParagraph(sink);
    sink.depth = Math.max(0, sink.depth + (closing ? -1 : 1));
  } else if (PARAGRAPH_ELEMENTS.has(name)) {
    endParagraph(sink);
    if (name === 'pre') sink.preformatted = Math.max(0, sink.preformatted + (closing ? -1 : 1));
  } else if (LINE_ELEMENTS.has(name)) {
    endLine(sink);
    if (name === 'li' && !closing) sink.current = '- ';
  } else if (name === 'td' || name === 'th') {
    if (!closing) sink.current += ' ';
  }
}

function addText(sink: TextSink, raw: string): void {
  if (sink.preformatted > 0) {
    const [first = '', ...rest] = decodeEntities(raw).split(/\r?\n/);
    sink.current += first;
    for (const line of rest) {
      endLine(sink, true);
      sink.current = line;
    }
    return;
  }
  const text = decodeEntities(raw.replace(/\s+/g, ' '));
  sink.current += sink.current === '' || sink.current.endsWith(' ') ? text.trimStart() : text;
}

/** Finishes the line in progress; with `always`, also an empty one (`<br><br>` is a blank line). */
function endLine(sink: TextSink, always = false): void {
  const text = sink.preformatted > 0 ? sink.current.trimEnd() : sink.current.trim();
  if (text !== '' || always) sink.lines.push({ depth: sink.depth, text });
  sink.current = '';
}

function endParagraph(sink: TextSink): void {
  endLine(sink);
  const last = sink.lines.at(-1);
  if (last !== undefined && last.text !== '') sink.lines.push({ depth: sink.depth, text: '' });
}

function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (match, body: string) => {
    if (body.startsWith('#')) return codePointText(body.slice(1));
    return NAMED_ENTITIES[body] ?? match;
  });
}

function codePointText(reference: string): string {
  const codePoint = reference.startsWith('x') || reference.startsWith('X') ? Number.parseInt(reference.slice(1), 16) : Number.parseInt(reference, 10);
  const valid = codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
  return valid ? String.fromCodePoint(codePoint) : '\ufffd';
}
