/**
 * HTML to plain text for replies without a text/plain part, in one linear scan (no regular
 * expression over the whole document, no dependency). This file finds the markup; what each tag
 * does to the text is in `html-text-sink.ts`.
 */
import { addText, applyTag, newTextSink, sinkText, type TextSink } from './html-text-sink.ts';

/** Elements whose content is never text. */
const SKIPPED_ELEMENTS = new Set(['head', 'script', 'style', 'title', 'template', 'noscript', 'svg', 'object']);

/** Longest tag name read, in characters; longer names are cut (they match no known element anyway). */
const MAX_TAG_NAME = 39;

/**
 * HTML to plain text: scripts, styles and comments dropped, block elements to line breaks,
 * `<blockquote>` content prefixed with `> ` per level (so the reply's line pass removes it like
 * any quote), list items as `- `, entities decoded. Markup is never kept: the result is text only.
 * Unclosed markup is read to the end of the document; a `<` that starts no tag is text.
 *
 * @example
 * htmlToText('<p>Yes &amp; thanks</p><blockquote>Book it?</blockquote>'); // → 'Yes & thanks\n\n> Book it?\n'
 */
export function htmlToText(html: string): string {
  const sink = newTextSink();
  let position = 0;
  while (position < html.length) {
    const open = html.indexOf('<', position);
    const textEnd = open === -1 ? html.length : open;
    if (textEnd > position) addText(sink, html.slice(position, textEnd));
    if (open === -1) break;
    position = readMarkup(sink, html, open);
  }
  return sinkText(sink);
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
  const nameStart = open + (closing ? 2 : 1);
  const name = /^[a-zA-Z][a-zA-Z0-9-]*/.exec(html.slice(nameStart, nameStart + MAX_TAG_NAME))?.[0].toLowerCase() ?? '';
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

/** The index after the next `marker` from `from` on, or the end of `html` when there is none. */
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
