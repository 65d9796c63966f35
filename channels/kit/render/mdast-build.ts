/**
 * Small builders for the mdast nodes that templates, approval requests and artifact lines produce,
 * and {@link plainTextOf} for the text of a phrasing tree.
 */

import type { Heading, List, ListItem, Nodes, Paragraph, PhrasingContent, Strong, Table, TableRow, Text } from 'mdast';

/** A `text` node. The renderers escape it for each target; it is never read as markup. */
export function textNode(value: string): Text {
  return { type: 'text', value };
}

/** A `strong` node around `value`. */
export function strongNode(value: string): Strong {
  return { type: 'strong', children: [textNode(value)] };
}

/** A paragraph of phrasing nodes; strings become `text` nodes. */
export function paragraphNode(...content: readonly (string | PhrasingContent)[]): Paragraph {
  return { type: 'paragraph', children: content.map((item) => (typeof item === 'string' ? textNode(item) : item)) };
}

/**
 * A paragraph of lines separated by hard breaks: one line per entry, each entry a string or a list
 * of phrasing nodes.
 */
export function linesNode(lines: readonly (string | readonly PhrasingContent[])[]): Paragraph {
  const children: PhrasingContent[] = [];
  lines.forEach((line, index) => {
    if (index > 0) children.push({ type: 'break' });
    if (typeof line === 'string') children.push(textNode(line));
    else children.push(...line);
  });
  return { type: 'paragraph', children };
}

/** A heading of `depth` (1 to 6; default 3). */
export function headingNode(value: string, depth: Heading['depth'] = 3): Heading {
  return { type: 'heading', depth, children: [textNode(value)] };
}

/** A tight bullet list; each item is a paragraph, optionally followed by a nested list. */
export function listNode(items: readonly (Paragraph | readonly [Paragraph, List])[]): List {
  const children: ListItem[] = items.map((item) => ({
    type: 'listItem',
    spread: false,
    children: Array.isArray(item) ? [...(item as readonly [Paragraph, List])] : [item as Paragraph],
  }));
  return { type: 'list', ordered: false, spread: false, children };
}

/** A table with one header row; every row is padded or cut to the header's width. */
export function tableNode(headers: readonly string[], rows: readonly (readonly string[])[]): Table {
  const row = (cells: readonly string[]): TableRow => ({
    type: 'tableRow',
    children: headers.map((_, index) => ({ type: 'tableCell', children: [textNode(cells[index] ?? '')] })),
  });
  return { type: 'table', align: headers.map(() => null), children: [row(headers), ...rows.map(row)] };
}

/** The text of a node and its descendants: text, inline code and image alt texts, breaks as spaces. */
export function plainTextOf(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value;
    case 'image':
      return node.alt ?? '';
    case 'break':
      return ' ';
    default:
      return 'children' in node ? node.children.map((child: Nodes) => plainTextOf(child)).join('') : '';
  }
}
