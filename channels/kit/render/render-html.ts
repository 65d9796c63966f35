/**
 * A small, clean HTML fragment for e-mail and the web chat page. Only these tags are written:
 * `p h2 h3 h4 strong em del code pre ul ol li blockquote a table thead tbody tr th td br hr`, with
 * the attributes `a[href]` (`http:`, `https:`, `mailto:` only), `ol[start]`, and for the web
 * `a[target rel]`. Text is escaped everywhere; raw HTML from the model is shown as escaped text,
 * never passed through; images become links and are never loaded inline. Markdown headings 1 to 6
 * map to `h2`, `h3` and `h4` (the page or mail owns `h1`).
 */

import type { List, ListItem, Nodes, PhrasingContent, Root, RootContent, Table } from 'mdast';
import { escapeHtmlAttribute, escapeHtmlText } from './html-escape.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { safeUrl } from './urls.ts';

/** Options of {@link renderHtml}. */
export interface HtmlOptions {
  /**
   * Open links in a new browsing context: adds `target="_blank" rel="noopener noreferrer nofollow"`
   * to every link. Default `false` (e-mail); the web chat sets it.
   */
  readonly newWindowLinks?: boolean;
}

/** The rel value of links opened in a new window. */
export const NEW_WINDOW_REL = 'noopener noreferrer nofollow';

function anchor(href: string, inner: string, options: HtmlOptions): string {
  const extra = options.newWindowLinks === true ? ` target="_blank" rel="${NEW_WINDOW_REL}"` : '';
  return `<a href="${escapeHtmlAttribute(href)}"${extra}>${inner}</a>`;
}

function inline(nodes: readonly PhrasingContent[], options: HtmlOptions): string {
  return nodes.map((node) => inlineOne(node, options)).join('');
}

function inlineOne(node: PhrasingContent | Nodes, options: HtmlOptions): string {
  switch (node.type) {
    case 'text':
    case 'html':
      return escapeHtmlText(node.value);
    case 'strong':
      return `<strong>${inline(node.children, options)}</strong>`;
    case 'emphasis':
      return `<em>${inline(node.children, options)}</em>`;
    case 'delete':
      return `<del>${inline(node.children, options)}</del>`;
    case 'inlineCode':
      return `<code>${escapeHtmlText(node.value)}</code>`;
    case 'break':
      return '<br />';
    case 'link': {
      const href = safeUrl(node.url);
      const label = inline(node.children, options);
      return href === undefined ? label : anchor(href, label === '' ? escapeHtmlText(href) : label, options);
    }
    case 'image': {
      const href = safeUrl(node.url);
      const alt = escapeHtmlText(node.alt ?? '');
      return href === undefined ? alt : anchor(href, alt === '' ? escapeHtmlText(href) : alt, options);
    }
    default:
      return 'children' in node ? node.children.map((child: Nodes) => inlineOne(child, options)).join('') : '';
  }
}

function listItem(item: ListItem, tight: boolean, options: HtmlOptions): string {
  const task = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
  const body = item.children
    .map((child) => (tight && child.type === 'paragraph' ? inline(child.children, options) : block(child, options)))
    .join('\n');
  return `<li>${task}${body}</li>`;
}

function list(node: List, options: HtmlOptions): string {
  const tight = node.spread !== true && node.children.every((item) => item.spread !== true);
  const items = node.children.map((item) => listItem(item, tight, options)).join('\n');
  if (node.ordered !== true) return `<ul>\n${items}\n</ul>`;
  const start = node.start ?? 1;
  return `${start === 1 ? '<ol>' : `<ol start="${start}">`}\n${items}\n</ol>`;
}

function table(node: Table, options: HtmlOptions): string {
  const [head, ...rows] = node.children;
  const width = head?.children.length ?? 0;
  const row = (cells: readonly { children: PhrasingContent[] }[], tag: 'th' | 'td'): string => {
    const padded = Array.from({ length: Math.max(width, cells.length) }, (_, index) => cells[index]?.children ?? []);
    return `<tr>${padded.map((children) => `<${tag}>${inline(children, options)}</${tag}>`).join('')}</tr>`;
  };
  const thead = head === undefined ? '' : `<thead>\n${row(head.children, 'th')}\n</thead>\n`;
  const tbody = rows.length === 0 ? '' : `<tbody>\n${rows.map((r) => row(r.children, 'td')).join('\n')}\n</tbody>\n`;
  return `<table>\n${thead}${tbody}</table>`;
}

function block(node: RootContent, options: HtmlOptions): string {
  switch (node.type) {
    case 'paragraph':
      return `<p>${inline(node.children, options)}</p>`;
    case 'heading': {
      const level = Math.min(4, node.depth + 1);
      return `<h${level}>${inline(node.children, options)}</h${level}>`;
    }
    case 'thematicBreak':
      return '<hr />';
    case 'blockquote':
      return `<blockquote>\n${blocks(node.children, options)}\n</blockquote>`;
    case 'list':
      return list(node, options);
    case 'code':
      return `<pre><code>${escapeHtmlText(node.value)}</code></pre>`;
    case 'html':
      return `<p>${escapeHtmlText(node.value)}</p>`;
    case 'table':
      return table(node, options);
    default:
      return inlineOne(node, options);
  }
}

function blocks(nodes: readonly RootContent[], options: HtmlOptions): string {
  return nodes.map((node) => block(node, options)).filter((html) => html !== '').join('\n');
}

/**
 * `root` as an HTML fragment, top-level blocks separated by a line break.
 *
 * @example
 * renderHtml(parseMarkdown('Hi <b>there</b> [docs](https://example.com)'));
 * // '<p>Hi &lt;b&gt;there&lt;/b&gt; <a href="https://example.com">docs</a></p>'
 */
export function renderHtml(root: Root, options: HtmlOptions = {}): string {
  return blocks(root.children, options);
}

/**
 * The web chat's safe HTML for a model's markdown: parsed once, rendered with
 * {@link HtmlOptions.newWindowLinks}, raw HTML shown as text.
 */
export function renderSafeHtml(markdown: string): string {
  return renderHtml(parseMarkdown(markdown), { newWindowLinks: true });
}
