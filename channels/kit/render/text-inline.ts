/**
 * The inline (phrasing) walker shared by the text targets (plain, WhatsApp, Slack). A target says how
 * text is escaped and which markers it has; the walker handles nesting and whitespace.
 */

import type { PhrasingContent } from 'mdast';
import { plainTextOf } from './mdast-build.ts';

/** An inline style a text target may mark. */
export type Mark = 'strong' | 'emphasis' | 'delete';

/** How one text target writes inline content. */
export interface InlineDialect {
  /** Literal text, escaped as the target needs. */
  readonly text: (value: string) => string;
  /** The marker put on both sides of a `mark`, or `''` when the target shows no styles. */
  readonly marker: (mark: Mark) => string;
  /** Inline code. */
  readonly code: (value: string) => string;
  /** A link: its rendered label, its label as plain text, and its raw URL. */
  readonly link: (label: string, plainLabel: string, url: string) => string;
  /** An image (never loaded inline): its alt text and raw URL. */
  readonly image: (alt: string, url: string) => string;
  /** Raw inline HTML from the model: never passed on as markup. */
  readonly html: (value: string) => string;
}

/**
 * `inner` between two `marker`s, with leading and trailing whitespace kept outside the markers
 * (WhatsApp and Slack do not style `*bold *`). Blank `inner` is returned as is.
 */
export function wrapMark(marker: string, inner: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner);
  const core = match?.[2] ?? '';
  if (marker === '' || core === '') return inner;
  return `${match?.[1] ?? ''}${marker}${core}${marker}${match?.[3] ?? ''}`;
}

/**
 * Phrasing nodes as text in `dialect`. A mark already `active` (e.g. bold inside a bold heading) is
 * not repeated, so markers never double up (`**`, `__`).
 */
export function renderInline(
  nodes: readonly PhrasingContent[],
  dialect: InlineDialect,
  active: ReadonlySet<Mark> = new Set(),
): string {
  return nodes.map((node) => renderOne(node, dialect, active)).join('');
}

function renderOne(node: PhrasingContent, dialect: InlineDialect, active: ReadonlySet<Mark>): string {
  switch (node.type) {
    case 'text':
      return dialect.text(node.value);
    case 'strong':
    case 'emphasis':
    case 'delete': {
      const inner = renderInline(node.children, dialect, new Set([...active, node.type]));
      return active.has(node.type) ? inner : wrapMark(dialect.marker(node.type), inner);
    }
    case 'inlineCode':
      return dialect.code(node.value);
    case 'break':
      return '\n';
    case 'link':
      return dialect.link(renderInline(node.children, dialect, active), plainTextOf(node), node.url);
    case 'image':
      return dialect.image(node.alt ?? '', node.url);
    case 'html':
      return dialect.html(node.value);
    default:
      return dialect.text(plainTextOf(node));
  }
}
