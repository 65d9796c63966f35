/**
 * Pass 2 of `visibleReplyText`: `email-reply-parser` hides what it knows on top of our own
 * line pass (sign-offs such as "Best regards," and the attribution lines of further languages),
 * guarded against its patterns that backtrack polynomially.
 */
import EmailReplyParser from 'email-reply-parser';

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

/**
 * The visible text of `text` by `email-reply-parser`; `text` unchanged when it is longer than
 * 4,000 characters. Lines over 300 characters reach the parser as placeholders and come back as
 * they were. `text` must not contain U+E000 or U+E001.
 */
export function withReplyParser(text: string): string {
  if (text.length > PARSER_MAX_CHARS) return text;
  const long: string[] = [];
  const masked = text
    .split('\n')
    .map((line) => (line.length > PARSER_MAX_LINE ? `\ue000${String(long.push(line) - 1)}\ue001` : line))
    .join('\n');
  const visible = new EmailReplyParser().read(masked).getVisibleText();
  return visible.replace(PLACEHOLDER, (_match, index: string) => long[Number(index)] ?? '');
}
