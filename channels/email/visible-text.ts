/**
 * The words a person wrote in an email reply, without the quoted history, the attribution lines
 * ("On … wrote:") and the signatures that mail clients put around them.
 *
 * Three passes over the text/plain body:
 * 1. our own line pass (`visible-text-own-lines.ts`) removes what real clients produce and
 *    `email-reply-parser` misses: `>` lines anywhere (so bottom-posted and inline answers survive),
 *    attribution lines also when wrapped over two or three lines and in German, French, Spanish,
 *    Swedish, Dutch, Italian and Portuguese, Outlook's "From: … Sent: … To: … Subject:" block and
 *    "-----Original Message-----" separator, the `-- ` signature delimiter and "Sent from my
 *    iPhone"-style device lines;
 * 2. `email-reply-parser` hides what it knows on top (sign-offs such as "Best regards," and the
 *    attribution lines of further languages; `visible-text-reply-parser.ts`);
 * 3. blank lines are tidied and the result trimmed.
 *
 * When a message has no text/plain part, its HTML is turned into text first by the small converter
 * in `html-text.ts` (no dependency: `html-to-text` is only a dependency of `mailparser`).
 */
import { htmlToText } from './html-text.ts';
import { ownLines } from './visible-text-own-lines.ts';
import { withReplyParser } from './visible-text-reply-parser.ts';

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
