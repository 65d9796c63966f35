/**
 * The Graph API message bodies of the channel's messages (`WhatsAppOut`), limits checked first
 * (`outbound-limits.ts`). Pure; media are uploaded by the transport, which passes the media id.
 */
import type { WhatsAppButtonsOut, WhatsAppTemplateOut, WhatsAppTextOut } from '../transport.ts';
import { MAX_TEMPLATE_PARAM_CHARS, MAX_TEXT_CHARS } from '../whatsapp-payload.ts';
import type { GraphMessage } from './graph-client.ts';
import {
  checkButtons,
  checkLength,
  cloudRecipient,
  MAX_BUTTON_BODY_CHARS,
  MAX_BUTTON_ID_CHARS,
  MAX_CAPTION_CHARS,
  MAX_FOOTER_CHARS,
  MAX_LANGUAGE_CHARS,
  MAX_TEMPLATE_BUTTONS,
  MAX_TEMPLATE_NAME_CHARS,
  refused,
  templateParam,
} from './outbound-limits.ts';

/** Largest image sent as an image, in bytes (Meta's limit); a larger one goes as a document. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** A text message with link previews, quoting `quoteId` when given. */
export function textBody(out: WhatsAppTextOut): GraphMessage {
  checkLength('text', out.text, MAX_TEXT_CHARS);
  return {
    to: cloudRecipient(out.to),
    type: 'text',
    text: { body: out.text, preview_url: true },
    ...(out.quoteId === undefined ? {} : { context: { message_id: out.quoteId } }),
  };
}

/** An uploaded medium to send. */
export interface UploadedMedium {
  readonly to: string;
  readonly mediaId: string;
  readonly mimeType: string;
  readonly sizeBytes: number;
  /** Shown with a document. */
  readonly name: string;
  readonly caption?: string;
}

/** Whether a file goes as an image (JPEG or PNG of at most 5 MiB) rather than a document. */
export function sendsAsImage(mimeType: string, sizeBytes: number): boolean {
  return (mimeType === 'image/jpeg' || mimeType === 'image/png') && sizeBytes <= MAX_IMAGE_BYTES;
}

/** Checks a caption before the upload; `undefined` and `''` are no caption. */
export function checkCaption(caption: string | undefined): void {
  if (caption !== undefined && caption !== '') checkLength('caption', caption, MAX_CAPTION_CHARS);
}

/** An `image` or `document` message of an uploaded medium. */
export function mediaBody(medium: UploadedMedium): GraphMessage {
  checkCaption(medium.caption);
  const caption = medium.caption === undefined || medium.caption === '' ? {} : { caption: medium.caption };
  const to = cloudRecipient(medium.to);
  if (sendsAsImage(medium.mimeType, medium.sizeBytes)) return { to, type: 'image', image: { id: medium.mediaId, ...caption } };
  return { to, type: 'document', document: { id: medium.mediaId, filename: medium.name, ...caption } };
}

/** An interactive reply-button message. */
export function buttonsBody(out: WhatsAppButtonsOut): GraphMessage {
  checkLength('button message body', out.body, MAX_BUTTON_BODY_CHARS);
  checkButtons(out.buttons);
  if (out.footer !== undefined) checkLength('footer', out.footer, MAX_FOOTER_CHARS);
  return {
    to: cloudRecipient(out.to),
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: out.body },
      ...(out.footer === undefined ? {} : { footer: { text: out.footer } }),
      action: { buttons: out.buttons.map((button) => ({ type: 'reply', reply: { id: button.id, title: button.title } })) },
    },
  };
}

/** The body component of a template: each parameter normalised and checked. */
function bodyComponent(params: readonly string[]): Record<string, unknown>[] {
  if (params.length === 0) return [];
  const parameters = params.map((param) => {
    const text = templateParam(param);
    checkLength('template parameter', text, MAX_TEMPLATE_PARAM_CHARS);
    return { type: 'text', text };
  });
  return [{ type: 'body', parameters }];
}

/** The quick-reply button components of a template, by index. */
function quickReplyComponents(payloads: readonly string[]): Record<string, unknown>[] {
  if (payloads.length > MAX_TEMPLATE_BUTTONS) throw refused(`a template has ${payloads.length} quick replies, over ${MAX_TEMPLATE_BUTTONS}`);
  return payloads.map((payload, index) => {
    checkLength('quick-reply payload', payload, MAX_BUTTON_ID_CHARS);
    return { type: 'button', sub_type: 'quick_reply', index: String(index), parameters: [{ type: 'payload', payload }] };
  });
}

/** A template message: its body parameters in order, then a payload per quick-reply button. */
export function templateBody(out: WhatsAppTemplateOut): GraphMessage {
  checkLength('template name', out.name, MAX_TEMPLATE_NAME_CHARS);
  checkLength('template language', out.language, MAX_LANGUAGE_CHARS);
  return {
    to: cloudRecipient(out.to),
    type: 'template',
    template: {
      name: out.name,
      language: { code: out.language },
      components: [...bodyComponent(out.bodyParams), ...quickReplyComponents(out.quickReplies ?? [])],
    },
  };
}
