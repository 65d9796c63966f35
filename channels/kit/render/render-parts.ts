/**
 * The protocol parts of a settled envelope as one document: each text parsed once as markdown,
 * domain data through the data templates, approval requests as readable content. Artifacts are
 * left to the caller (attachments or link lines, see `artifacts.ts`).
 */

import type { Root, RootContent } from 'mdast';
import type { Part } from '../../../src/protocol/parts/part.ts';
import type { ApprovalPrompt } from './approval-text.ts';
import { approvalContent, approvalTitle } from './approval-text.ts';
import type { DataTemplates } from './data-templates.ts';
import { createDataTemplates, dataEntries } from './data-templates.ts';
import { stringField } from './json-fields.ts';
import { paragraphNode, plainTextOf } from './mdast-build.ts';
import { parseMarkdown } from './parse-markdown.ts';
import type { DataFormat } from './template-types.ts';

/**
 * Part types never shown to a person even when they carry text: internal or peer-only signals
 * (`llm-context` is prose for a peer model), inbound-only parts, surfaces, and `artifact` (handled apart).
 */
export const UNRENDERED_PART_TYPES: ReadonlySet<string> = new Set([
  'ack',
  'thinking',
  'progress',
  'reasoning-trace',
  'llm-context',
  'setState',
  'approval-response',
  'a2ui-surface',
  'artifact',
]);

/** Options of {@link documentFromParts}. */
export interface DocumentOptions {
  /** Templates for `domain-data`. Default `createDataTemplates()` (built-in flight templates + generic). */
  readonly templates?: DataTemplates;
  /** The channel's instructions for answering an approval request. Default none. */
  readonly approvalPrompt?: ApprovalPrompt;
  /** Render `domain-data` parts. Default `true`. */
  readonly includeDomainData?: boolean;
}

/** Parts ready to render: the same content for each format, parsed once. */
export interface RenderDocument {
  /** The content as mdast, for a text target or for HTML (data templates may differ, e.g. tables). */
  root(format: DataFormat): Root;
  /** The text of the first heading, else the title of the first approval request; for a mail subject. */
  readonly title: string | undefined;
}

type Section = (format: DataFormat) => RootContent[];

function firstHeading(children: readonly RootContent[]): string | undefined {
  const heading = children.find((node) => node.type === 'heading');
  const text = heading === undefined ? '' : plainTextOf(heading).trim();
  return text === '' ? undefined : text;
}

/**
 * The document of `parts`, in their order: `response`, `clarify`, `error` and any other part type
 * with text (except {@link UNRENDERED_PART_TYPES}) as markdown; an `error` without text shows its
 * `data.message`; `domain-data` through the templates; `approval-request` as readable content.
 *
 * @example
 * const document = documentFromParts(envelope.parts);
 * renderPlain(document.root('text'));
 */
export function documentFromParts(parts: readonly Part[], options: DocumentOptions = {}): RenderDocument {
  const templates = options.templates ?? createDataTemplates();
  const sections: Section[] = [];
  let title: string | undefined;
  let approval: string | undefined;
  for (const part of parts) {
    const type = part.metadata.partType;
    if (UNRENDERED_PART_TYPES.has(type)) continue;
    if (type === 'domain-data') {
      if (options.includeDomainData === false) continue;
      for (const entry of dataEntries(part.data, templates)) sections.push((format) => templates.render(entry.kind, entry.value, format));
      continue;
    }
    if (type === 'approval-request') {
      const content = approvalContent(part.data, options.approvalPrompt);
      if (content !== undefined) {
        approval ??= approvalTitle(part.data as { toolName: string });
        sections.push(() => content);
        continue;
      }
    }
    const message = type === 'error' && part.data !== undefined ? stringField(part.data, 'message') : undefined;
    const text = part.text ?? message;
    if (text === undefined || text.trim() === '') continue;
    const children = text === message ? [paragraphNode(text)] : parseMarkdown(text).children;
    title ??= firstHeading(children);
    sections.push(() => children);
  }
  return {
    root: (format) => ({ type: 'root', children: sections.flatMap((section) => section(format)) }),
    title: title ?? approval,
  };
}
