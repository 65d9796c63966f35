/**
 * What one email says, before threading and layout: the same content as an HTML fragment and as
 * plain text, with the files it carries. Parts are rendered by the kit (`renderForChannel`); files
 * held in the artifact store travel as attachments, the others as link lines.
 */
import type { Root, RootContent } from 'mdast';
import type { Part } from '../../src/protocol/parts/part.ts';
import { attachmentLinks } from '../kit/render/artifacts.ts';
import { escapeHtmlText } from '../kit/render/html-escape.ts';
import { renderForChannel } from '../kit/render/render-for-channel.ts';
import { renderHtml } from '../kit/render/render-html.ts';
import { renderPlain } from '../kit/render/render-plain.ts';
import type { EmailAttachment } from './email-payload.ts';

/** What one mail says and which files it carries, before threading and layout. */
export interface MailContent {
  /** An HTML fragment of attribute-free tags (the layout adds the inline styles). */
  readonly html: string;
  /** The same content as plain text. */
  readonly text: string;
  /** Files the mail carries (each with an `artifactId`). */
  readonly attachments: readonly EmailAttachment[];
  /** The subject the content itself suggests (a heading), if any. */
  readonly title?: string | undefined;
}

/** How an `approval-request` part reads in the requester's own mail (approvers get their own request). */
const APPROVAL_PART_PROMPT = 'This waits for a decision; every approver gets a request of their own to answer.';

function rootOf(nodes: readonly RootContent[]): Root {
  return { type: 'root', children: [...nodes] };
}

/** `parts` joined by `separator`, blank ones left out. */
function joinNonBlank(parts: readonly string[], separator: string): string {
  return parts.filter((part) => part.trim() !== '').join(separator);
}

/**
 * The content of `parts` (an answer, a part, a notice's text), or `undefined` when it shows
 * nothing: no text and no file. A mail of files alone reads `Attached: <names>`.
 */
export function partsContent(parts: readonly Part[]): MailContent | undefined {
  const mail = renderForChannel({ format: 'email' }, parts, { approvalPrompt: () => APPROVAL_PART_PROMPT });
  const files = mail.attachments.filter((attachment) => attachment.artifactId !== undefined);
  const links = rootOf(attachmentLinks(mail.attachments.filter((attachment) => attachment.artifactId === undefined)));
  const html = joinNonBlank([mail.html, renderHtml(links)], '\n');
  const listed = files.length > 0 && mail.text.trim() === '' ? `Attached: ${files.map((file) => file.name).join(', ')}` : '';
  const text = joinNonBlank([mail.text, renderPlain(links), listed], '\n\n');
  if (text === '' && files.length === 0) return undefined;
  return { html: html === '' ? `<p>${escapeHtmlText(listed)}</p>` : html, text, attachments: files, title: mail.subject };
}

/** The content of mdast `nodes` built by the renderer itself (approval mail): no files, no title. */
export function nodesContent(nodes: readonly RootContent[]): MailContent {
  return { html: renderHtml(rootOf(nodes)), text: renderPlain(rootOf(nodes)), attachments: [] };
}
