/**
 * Parses a model's markdown-ish text once into an mdast tree (CommonMark + GFM: tables,
 * strikethrough, autolink literals, task lists, footnotes) and normalises it so the renderers see a
 * small, closed set of node types.
 */

import type { BlockContent, FootnoteDefinition, Nodes, Paragraph, PhrasingContent, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** The GFM extensions, made once: they hold no state, and making them for every parse cost a quarter of it. */
const GFM_SYNTAX = [gfm()];
const GFM_TREE = [gfmFromMarkdown()];

/**
 * Text that cannot hold any markdown: letters, digits, spaces and punctuation that has no meaning
 * in CommonMark or GFM (no `\ ` * [ ] ( ) # + ! < > | ~ & =`, no `@` or `www.` or `://` that could
 * be autolinks, no tab); `-` and `_` only where they mean nothing (see {@link LINE_EDGES}).
 */
const NO_SYNTAX = /^[^\\`*[\]()#+!<>|~&=@\t\r]*$/u;
/**
 * What would change the parse: leading or trailing blanks, an indent, spaces before a line end, a
 * line starting with `-` or an ordered-list number, a line starting with `:` (`:-` under a line is
 * a GFM table's delimiter row, pipes or not), a `_` not between two letters or digits, an autolink.
 */
const LINE_EDGES = /^\s|\n | \n|\s$|(^|\n)(\d+[.)]|-|:)|(^|[^\p{L}\p{N}])_|_($|[^\p{L}\p{N}])|www\.|:\/\//u;

/**
 * The tree of text with no markdown in it (most short answers: acknowledgements, one-line replies)
 * without running the parser: paragraphs split at blank lines, each one text node. `undefined` for
 * anything else; a property test holds it equal to the parser's tree.
 */
export function plainParagraphs(text: string): Root | undefined {
  if (!NO_SYNTAX.test(text) || LINE_EDGES.test(text)) return undefined;
  const paragraphs = text.split(/\n{2,}/u).filter((paragraph) => paragraph !== '');
  return {
    type: 'root',
    children: paragraphs.map((paragraph): Paragraph => ({ type: 'paragraph', children: [{ type: 'text', value: paragraph }] })),
  };
}

interface Definitions {
  readonly links: Map<string, { url: string; title: string | null | undefined }>;
  /** Footnote number by identifier, in order of first reference. */
  readonly footnotes: Map<string, number>;
}

function collectDefinitions(root: Root): Definitions {
  const links: Definitions['links'] = new Map();
  const visit = (node: Nodes): void => {
    if (node.type === 'definition') links.set(node.identifier, { url: node.url, title: node.title });
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(root);
  return { links, footnotes: new Map() };
}

function footnoteNumber(definitions: Definitions, identifier: string): number {
  const known = definitions.footnotes.get(identifier);
  if (known !== undefined) return known;
  const next = definitions.footnotes.size + 1;
  definitions.footnotes.set(identifier, next);
  return next;
}

/** One node rewritten: references resolved, definitions dropped (`[]`), footnote marks as `[n]` text. */
function normaliseNode(node: RootContent, definitions: Definitions): RootContent[] {
  switch (node.type) {
    case 'definition':
    case 'footnoteDefinition':
      return [];
    case 'linkReference': {
      const target = definitions.links.get(node.identifier);
      const children = normaliseChildren(node.children, definitions) as PhrasingContent[];
      return target === undefined ? children : [{ type: 'link', url: target.url, title: target.title ?? null, children }];
    }
    case 'imageReference': {
      const target = definitions.links.get(node.identifier);
      return target === undefined ? [{ type: 'text', value: node.alt ?? '' }] : [{ type: 'image', url: target.url, alt: node.alt ?? null }];
    }
    case 'footnoteReference':
      return [{ type: 'text', value: `[${footnoteNumber(definitions, node.identifier)}]` }];
    default:
      if ('children' in node) {
        const children = normaliseChildren(node.children, definitions);
        return [{ ...node, children } as RootContent];
      }
      return [node];
  }
}

function normaliseChildren(children: readonly RootContent[], definitions: Definitions): RootContent[] {
  return children.flatMap((child) => normaliseNode(child, definitions));
}

function collectFootnotes(root: Root): Map<string, FootnoteDefinition> {
  const found = new Map<string, FootnoteDefinition>();
  const visit = (node: Nodes): void => {
    if (node.type === 'footnoteDefinition' && !found.has(node.identifier)) found.set(node.identifier, node);
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(root);
  return found;
}

/** The footnotes, referenced ones first in reference order, each opening with its `[n]` mark. */
function footnoteBlocks(root: Root, definitions: Definitions): RootContent[] {
  const numbered = [...collectFootnotes(root)]
    .map(([identifier, definition]) => ({ number: footnoteNumber(definitions, identifier), definition }))
    .sort((a, b) => a.number - b.number);
  const blocks: RootContent[] = [];
  for (const { number, definition } of numbered) {
    const body = normaliseChildren(definition.children, definitions) as BlockContent[];
    const mark = { type: 'text', value: `[${number}] ` } as const;
    const first = body[0];
    if (first?.type === 'paragraph') {
      blocks.push({ ...first, children: [mark, ...first.children] }, ...body.slice(1));
    } else {
      blocks.push({ type: 'paragraph', children: [mark] } satisfies Paragraph, ...body);
    }
  }
  return blocks;
}

/**
 * Parses `text` as markdown with GFM and returns a normalised tree: link and image references are
 * resolved into `link` and `image` nodes, definitions are dropped, footnote references become `[n]`
 * text and footnote bodies move to the end as paragraphs opening with `[n] `. Raw HTML stays as
 * `html` nodes: every renderer treats it as text, never as markup.
 *
 * @example
 * parseMarkdown('**Hi** [there](https://example.com)').children[0]?.type; // 'paragraph'
 */
export function parseMarkdown(text: string): Root {
  const plain = plainParagraphs(text);
  if (plain !== undefined) return plain;
  const tree = fromMarkdown(text, { extensions: GFM_SYNTAX, mdastExtensions: GFM_TREE });
  const definitions = collectDefinitions(tree);
  const children = normaliseChildren(tree.children, definitions);
  return { type: 'root', children: [...children, ...footnoteBlocks(tree, definitions)] };
}
