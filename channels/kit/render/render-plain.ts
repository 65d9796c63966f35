/**
 * Plain text for SMS and e-mail text parts: no markdown left (no `**`, `#`, backticks, `[x](y)`).
 *
 * Choices, for a reader on a phone:
 * - headings are their text on their own line, directly followed by the next block;
 * - lists are lines with `- ` or `1. ` markers (tasks `[x] ` / `[ ] `), nested lists indented by
 *   two spaces per level;
 * - links read `label: url` (just the address when the label is the address), images `alt: url`;
 *   links to unsafe schemes keep only their label;
 * - inline code is plain text; code blocks are their lines, verbatim, without fences;
 * - tables are one line per row, `Header: value, Header: value`;
 * - block quotes are wrapped in quotation marks “…”; thematic breaks are dropped;
 * - raw HTML is reduced to its visible text.
 */

import type { Root } from 'mdast';
import { normaliseGsm } from './gsm.ts';
import type { TextDialect } from './text-blocks.ts';
import { renderTextBlocks } from './text-blocks.ts';
import { htmlAsText } from './html-as-text.ts';
import { renderInline } from './text-inline.ts';
import { imageAsText, linkAsText } from './urls.ts';

/** Options of {@link renderPlain}. */
export interface PlainOptions {
  /** Replace smart quotes, dashes, ellipsis and special spaces with GSM-7 friendly ASCII (see `normaliseGsm`). Default `false`. */
  readonly gsm?: boolean;
}

const PLAIN: TextDialect = {
  text: (value) => value,
  marker: () => '',
  code: (value) => value,
  link: (label, _plain, url) => linkAsText(label, url),
  image: imageAsText,
  html: (value) => htmlAsText(value, true),
  heading: (node) => renderInline(node.children, PLAIN).trim(),
  codeBlock: (value) => value,
  bullet: () => '- ',
  quote: (blocks) => (blocks.length === 0 ? '' : `“${blocks.join('\n')}”`),
  indent: '  ',
};

/** The top-level blocks of `root` as plain text, in order (see {@link renderPlain}). */
export function renderPlainBlocks(root: Root, options: PlainOptions = {}): string[] {
  const blocks = renderTextBlocks(root.children, PLAIN);
  return options.gsm === true ? blocks.map(normaliseGsm) : blocks;
}

/**
 * `root` as plain text, blocks separated by a blank line.
 *
 * @example
 * renderPlain(parseMarkdown('## Tips\n\n- **Pack** light\n- See [the guide](https://example.com/g)'));
 * // 'Tips\n- Pack light\n- See the guide: https://example.com/g'
 */
export function renderPlain(root: Root, options: PlainOptions = {}): string {
  return renderPlainBlocks(root, options).join('\n\n');
}
