/**
 * WhatsApp text with WhatsApp's own markup: `*bold*`, `_italic_`, `~strike~`, and ``` for inline
 * and block monospace. Headings are `*bold*` lines, lists `- ` / `1. ` lines (nested: two more
 * spaces per level), links `label: url`, images `alt: url`, tables one `Header: value, ...` line
 * per row, quotes `> ` lines; raw HTML is reduced to its visible text. Nothing WhatsApp would show as
 * stray markdown (`**`, `#`, `[x](y)`) is emitted.
 */

import type { Root } from 'mdast';
import { htmlAsText } from './html-as-text.ts';
import type { TextDialect } from './text-blocks.ts';
import { renderTextBlocks } from './text-blocks.ts';
import type { Mark } from './text-inline.ts';
import { renderInline, wrapMark } from './text-inline.ts';
import { imageAsText, linkAsText } from './urls.ts';

const MARKERS: Readonly<Record<Mark, string>> = { strong: '*', emphasis: '_', delete: '~' };
const FENCE = '```';

const WHATSAPP: TextDialect = {
  text: (value) => value,
  marker: (mark) => MARKERS[mark],
  code: (value) => (value.trim() === '' ? value : `${FENCE}${value}${FENCE}`),
  link: (label, _plain, url) => linkAsText(label, url),
  image: imageAsText,
  html: (value) => htmlAsText(value, true),
  heading: (node) => wrapMark('*', renderInline(node.children, WHATSAPP, new Set(['strong'])).trim()),
  codeBlock: (value) => `${FENCE}\n${value}\n${FENCE}`,
  bullet: () => '- ',
  quote: (blocks) => blocks.join('\n\n').split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n'),
  indent: '  ',
};

/** The top-level blocks of `root` as WhatsApp text, in order (see {@link renderWhatsApp}). */
export function renderWhatsAppBlocks(root: Root): string[] {
  return renderTextBlocks(root.children, WHATSAPP);
}

/**
 * `root` as WhatsApp text, blocks separated by a blank line.
 *
 * @example
 * renderWhatsApp(parseMarkdown('# Trip\n\n**Day 1**: ~~Rome~~ _Florence_'));
 * // '*Trip*\n*Day 1*: ~Rome~ _Florence_'
 */
export function renderWhatsApp(root: Root): string {
  return renderWhatsAppBlocks(root).join('\n\n');
}
