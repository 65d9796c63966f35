/**
 * Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`, `` `code` ``, ``` blocks, links `<url|label>`.
 * `&`, `<` and `>` are escaped as `&amp;`, `&lt;`, `&gt;` in all text, code included; the only raw
 * `<`/`>` are those of the links emitted here (and `>` opening quote lines). Headings are `*bold*`
 * lines, lists `• ` lines (nested: `◦ `, four spaces more per level), tables one
 * `Header: value, ...` line per row, raw HTML reduced to its visible text. Slack has no escape for
 * a backtick inside inline code, so one there is shown as `ˋ`.
 */

import type { Root } from 'mdast';
import { htmlAsText } from './html-as-text.ts';
import type { TextDialect } from './text-blocks.ts';
import { renderTextBlocks } from './text-blocks.ts';
import type { Mark } from './text-inline.ts';
import { renderInline, wrapMark } from './text-inline.ts';
import { linkAsText, safeUrl } from './urls.ts';

const MARKERS: Readonly<Record<Mark, string>> = { strong: '*', emphasis: '_', delete: '~' };

/** `value` with `&`, `<` and `>` escaped as Slack requires. */
export function escapeSlack(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A Slack link `<url|label>` (`<url>` when the label is the URL or empty); for a URL that is not
 * safe, the escaped label (with the number of a `tel:` link).
 */
export function slackLink(label: string, url: string): string {
  const safe = safeUrl(url);
  const text = label.replace(/\s+/g, ' ').trim();
  if (safe === undefined) return escapeSlack(linkAsText(text, url));
  const target = escapeSlack(safe);
  return text === '' || text === safe ? `<${target}>` : `<${target}|${escapeSlack(text)}>`;
}

const SLACK: TextDialect = {
  text: escapeSlack,
  marker: (mark) => MARKERS[mark],
  code: (value) => (value.trim() === '' ? escapeSlack(value) : `\`${escapeSlack(value.replace(/`/g, 'ˋ'))}\``),
  link: (_label, plain, url) => slackLink(plain, url),
  image: (alt, url) => slackLink(alt, url),
  html: (value) => escapeSlack(htmlAsText(value, true)),
  heading: (node) => wrapMark('*', renderInline(node.children, SLACK, new Set(['strong'])).trim()),
  codeBlock: (value) => `\`\`\`\n${escapeSlack(value)}\n\`\`\``,
  bullet: (depth) => (depth === 0 ? '• ' : depth === 1 ? '◦ ' : '▪ '),
  quote: (blocks) => blocks.join('\n\n').split('\n').map((line) => `>${line === '' ? '' : ` ${line}`}`).join('\n'),
  indent: '    ',
};

/** The top-level blocks of `root` as Slack mrkdwn, in order (see {@link renderSlack}). */
export function renderSlackBlocks(root: Root): string[] {
  return renderTextBlocks(root.children, SLACK);
}

/**
 * `root` as Slack mrkdwn, blocks separated by a blank line.
 *
 * @example
 * renderSlack(parseMarkdown('**Fares** for [LHR → CDG](https://example.com?a=1&b=2) < £100'));
 * // '*Fares* for <https://example.com?a=1&amp;b=2|LHR → CDG> &lt; £100'
 */
export function renderSlack(root: Root): string {
  return renderSlackBlocks(root).join('\n\n');
}
