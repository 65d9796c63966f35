/**
 * The one entry point channels call: the parts of a settled envelope rendered for a channel's
 * format, chunked to its limit, with artifacts as attachments or link lines.
 */

import type { Root } from 'mdast';
import type { Part } from '../../../src/protocol/parts/part.ts';
import type { ArtifactOptions, Attachment } from './artifacts.ts';
import { artifactAttachments, attachmentLinks } from './artifacts.ts';
import { chunkBlocks } from './chunk.ts';
import type { DocumentOptions } from './render-parts.ts';
import { documentFromParts } from './render-parts.ts';
import { renderHtml } from './render-html.ts';
import { renderPlain, renderPlainBlocks } from './render-plain.ts';
import { renderSlackBlocks } from './render-slack.ts';
import { renderWhatsAppBlocks } from './render-whatsapp.ts';
import type { ChunkedRendering, EmailRendering, RenderingFor, RenderTarget, WebRendering } from './render-targets.ts';
import { smsSegmentCount } from './sms-segments.ts';

/** Options of {@link renderForChannel}. */
export interface RenderOptions extends DocumentOptions, ArtifactOptions {}

const SUBJECT_MAX_CHARS = 78;

function withLinks(root: Root, attachments: readonly Attachment[], asAttachments: boolean): Root {
  return asAttachments ? root : { type: 'root', children: [...root.children, ...attachmentLinks(attachments)] };
}

function subjectOf(title: string | undefined): { subject?: string } {
  if (title === undefined) return {};
  const flat = title.replace(/\s+/g, ' ');
  return { subject: flat.length <= SUBJECT_MAX_CHARS ? flat : `${flat.slice(0, SUBJECT_MAX_CHARS - 1)}…` };
}

/**
 * Renders `parts` (a settled envelope's parts, e.g. after the delivery filter) for `target`.
 *
 * @example
 * const { chunks, attachments } = renderForChannel({ format: 'whatsapp' }, envelope.parts);
 * const mail = renderForChannel({ format: 'email' }, envelope.parts, { approvalPrompt: () => 'Use the buttons in the web chat.' });
 * @throws SwitchboardError `render.invalid` when a limit is not a positive integer or too small.
 */
export function renderForChannel<T extends RenderTarget>(target: T, parts: readonly Part[], options: RenderOptions = {}): RenderingFor<T> {
  const document = documentFromParts(parts, options);
  const attachments = artifactAttachments(parts, options);
  const rendering = ((): EmailRendering | WebRendering | ChunkedRendering => {
    switch (target.format) {
      case 'email': {
        const html = renderHtml(document.root('html'));
        return { format: 'email', ...subjectOf(document.title), html, text: renderPlain(document.root('text')), attachments };
      }
      case 'web': {
        const asAttachments = target.attachments === true;
        const html = renderHtml(withLinks(document.root('html'), attachments, asAttachments), { newWindowLinks: true });
        return { format: 'web', html, attachments: asAttachments ? attachments : [] };
      }
      case 'plain': {
        const asAttachments = target.attachments === true;
        const blocks = renderPlainBlocks(withLinks(document.root('text'), attachments, asAttachments), { gsm: target.gsm ?? true });
        const chunks = chunkBlocks(blocks, { maxChars: target.maxSegments ?? 10, countFn: smsSegmentCount, numbering: target.numbering ?? 'prefix' });
        return { format: 'plain', chunks, attachments: asAttachments ? attachments : [] };
      }
      case 'whatsapp':
      case 'slack': {
        const asAttachments = target.attachments ?? target.format === 'whatsapp';
        const root = withLinks(document.root('text'), attachments, asAttachments);
        const blocks = target.format === 'whatsapp' ? renderWhatsAppBlocks(root) : renderSlackBlocks(root);
        const maxChars = target.maxChars ?? (target.format === 'whatsapp' ? 4096 : 3000);
        const chunks = chunkBlocks(blocks, { maxChars, numbering: target.numbering ?? 'prefix' });
        return { format: target.format, chunks, attachments: asAttachments ? attachments : [] };
      }
    }
  })();
  return rendering as RenderingFor<T>;
}
