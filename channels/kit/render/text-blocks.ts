/**
 * The block walker shared by the text targets (plain, WhatsApp, Slack): paragraphs, headings,
 * lists, quotes, code, tables and raw HTML as lines of text, one string per top-level block.
 */

import type { Heading, List, PhrasingContent, RootContent, Table } from 'mdast';
import { htmlAsText } from './html-as-text.ts';
import type { InlineDialect } from './text-inline.ts';
import { renderInline } from './text-inline.ts';

/** How one text target writes blocks, on top of its {@link InlineDialect}. */
export interface TextDialect extends InlineDialect {
  /** A heading as one line. */
  readonly heading: (node: Heading) => string;
  /** The content of a code block, as the target shows it. */
  readonly codeBlock: (value: string) => string;
  /** The marker of an unordered list item at nesting `depth` (0 for the outer list), with its trailing space. */
  readonly bullet: (depth: number) => string;
  /** The rendered blocks of a block quote, as one block. */
  readonly quote: (blocks: readonly string[]) => string;
  /** What continuation lines of a list item and nested lists are indented by. */
  readonly indent: string;
}

/**
 * The top-level blocks of `nodes` as text, in order, without empty ones. A heading is joined to the
 * block after it with a single line break, so a split never leaves a heading alone. Thematic breaks
 * give no block (blocks are already separated by a blank line).
 */
export function renderTextBlocks(nodes: readonly RootContent[], dialect: TextDialect): string[] {
  const out: string[] = [];
  let heading: string | undefined;
  for (const node of nodes) {
    const block = renderBlock(node, dialect, 0);
    if (block.trim() === '') continue;
    if (node.type === 'heading') {
      if (heading !== undefined) out.push(heading);
      heading = block;
      continue;
    }
    out.push(heading === undefined ? block : `${heading}\n${block}`);
    heading = undefined;
  }
  if (heading !== undefined) out.push(heading);
  return out;
}

/** Paragraph text without spaces around line breaks or doubled (left by removed raw HTML), trimmed. */
function tidy(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*/g, '\n').replace(/ {2,}/g, ' ').trim();
}

function renderBlock(node: RootContent, dialect: TextDialect, depth: number): string {
  switch (node.type) {
    case 'paragraph':
      return tidy(renderInline(node.children, dialect));
    case 'heading':
      return dialect.heading(node);
    case 'thematicBreak':
      return '';
    case 'blockquote':
      return dialect.quote(renderTextBlocks(node.children, dialect));
    case 'list':
      return renderList(node, dialect, depth);
    case 'code':
      return dialect.codeBlock(node.value);
    case 'html':
      return dialect.text(htmlAsText(node.value));
    case 'table':
      return renderTable(node, dialect);
    default:
      return 'children' in node || 'value' in node ? renderInline([node as PhrasingContent], dialect) : '';
  }
}

function renderList(list: List, dialect: TextDialect, depth: number): string {
  const start = list.start ?? 1;
  return list.children
    .map((item, index) => {
      const marker = list.ordered === true ? `${start + index}. ` : dialect.bullet(depth);
      const task = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
      const body = item.children
        .map((child) => renderBlock(child, dialect, depth + 1))
        .filter((text) => text.trim() !== '')
        .join('\n');
      const lines = body.split('\n');
      return lines.map((line, at) => (at === 0 ? `${marker}${task}${line}`.trimEnd() : `${dialect.indent}${line}`)).join('\n');
    })
    .join('\n');
}

function renderTable(table: Table, dialect: TextDialect): string {
  const [head, ...rows] = table.children;
  const headers = (head?.children ?? []).map((cell) => renderInline(cell.children, dialect).trim());
  if (rows.length === 0) return headers.filter((header) => header !== '').join(', ');
  return rows
    .map((row) =>
      row.children
        .map((cell, index) => {
          const value = renderInline(cell.children, dialect).trim();
          const header = headers[index] ?? '';
          return value === '' || header === '' ? value : `${header}: ${value}`;
        })
        .filter((text) => text !== '')
        .join(', '),
    )
    .filter((line) => line !== '')
    .join('\n');
}
