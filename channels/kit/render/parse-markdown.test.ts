import type { RootContent } from 'mdast';
import { describe, expect, it } from 'vitest';
import { plainTextOf } from './mdast-build.ts';
import { parseMarkdown } from './parse-markdown.ts';

const types = (nodes: readonly RootContent[]): string[] => nodes.map((node) => node.type);

describe('parseMarkdown', () => {
  it('parses GFM: tables, strikethrough, task lists, autolink literals', () => {
    const root = parseMarkdown('| a |\n|---|\n| 1 |\n\n~~old~~ www.example.com\n\n- [x] done');
    expect(types(root.children)).toEqual(['table', 'paragraph', 'list']);
    const paragraph = root.children[1];
    expect(paragraph?.type === 'paragraph' ? types(paragraph.children) : []).toEqual(['delete', 'text', 'link']);
    const list = root.children[2];
    expect(list?.type === 'list' ? list.children[0]?.checked : undefined).toBe(true);
  });

  it('resolves reference links and images and drops their definitions', () => {
    const root = parseMarkdown('[docs][d] and ![map][m]\n\n[d]: https://example.com/docs\n[m]: https://example.com/map.png');
    expect(root.children).toHaveLength(1);
    const paragraph = root.children[0];
    const [link, , image] = paragraph?.type === 'paragraph' ? paragraph.children : [];
    expect(link).toMatchObject({ type: 'link', url: 'https://example.com/docs' });
    expect(image).toMatchObject({ type: 'image', url: 'https://example.com/map.png', alt: 'map' });
  });

  it('numbers footnotes in reference order and moves their bodies to the end', () => {
    const root = parseMarkdown('[^b]: Second.\n\nA[^a] and B[^b].\n\n[^a]: First.');
    expect(root.children.map((node) => plainTextOf(node))).toEqual(['A[1] and B[2].', '[1] First.', '[2] Second.']);
  });

  it('keeps raw HTML as html nodes (never as markup)', () => {
    const root = parseMarkdown('<script>alert(1)</script>\n\nHi <b>x</b>');
    expect(types(root.children)).toEqual(['html', 'paragraph']);
  });
});
