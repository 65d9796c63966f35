/**
 * The text `htmlToText` builds: what each tag does to the lines (paragraphs, line breaks, list
 * items, blockquote depth, preformatted text) and how text between tags is added.
 */
import { decodeEntities } from './html-text-entities.ts';

/** Elements that end a paragraph (a blank line around them). */
const PARAGRAPH_ELEMENTS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'ul', 'ol', 'table', 'pre', 'blockquote', 'dl']);

/** Elements that end a line. */
const LINE_ELEMENTS = new Set(['br', 'div', 'li', 'tr', 'section', 'article', 'header', 'footer', 'address', 'center', 'dt', 'dd', 'figure', 'main', 'nav', 'aside', 'form', 'fieldset']);

/** The text being built: finished lines with their blockquote depth, and the line in progress. */
export interface TextSink {
  readonly lines: { readonly depth: number; readonly text: string }[];
  current: string;
  /** How many `<blockquote>` elements are open. */
  depth: number;
  /** How many `<pre>` elements are open. */
  preformatted: number;
}

/** An empty sink, outside any blockquote or `<pre>`. */
export function newTextSink(): TextSink {
  return { lines: [], current: '', depth: 0, preformatted: 0 };
}

/** Ends the line in progress and returns all lines, each prefixed with `> ` per blockquote level unless blank. */
export function sinkText(sink: TextSink): string {
  endLine(sink);
  return sink.lines.map((line) => (line.text === '' ? '' : '> '.repeat(line.depth) + line.text)).join('\n');
}

/** What the opening or `closing` tag `name` (lower case) does to the text; unknown tags do nothing. */
export function applyTag(sink: TextSink, name: string, closing: boolean): void {
  const step = closing ? -1 : 1;
  if (name === 'br') {
    endLine(sink, true);
  } else if (name === 'blockquote') {
    endParagraph(sink);
    sink.depth = Math.max(0, sink.depth + step);
  } else if (PARAGRAPH_ELEMENTS.has(name)) {
    endParagraph(sink);
    if (name === 'pre') sink.preformatted = Math.max(0, sink.preformatted + step);
  } else if (LINE_ELEMENTS.has(name)) {
    endLine(sink);
    if (name === 'li' && !closing) sink.current = '- ';
  } else if ((name === 'td' || name === 'th') && !closing) {
    sink.current += ' ';
  }
}

/** Adds the text between two tags: white space collapsed, except inside `<pre>` where its lines are kept. */
export function addText(sink: TextSink, raw: string): void {
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

/** Finishes the line in progress and adds a blank line after it, unless the last line is blank already. */
function endParagraph(sink: TextSink): void {
  endLine(sink);
  const last = sink.lines.at(-1);
  if (last !== undefined && last.text !== '') sink.lines.push({ depth: sink.depth, text: '' });
}
