/**
 * What the WhatsApp channel's sender asks of a transport: the Cloud API (`cloud/`) or a
 * whatsapp-web.js session (`web/`). Payloads are built by the renderer (`render.ts`) and checked
 * by the sender (opt-outs, the 24-hour window) before a transport sees them.
 */
import type { SendIntent, SentLookup } from '../../queues/outbound-types.ts';

/**
 * A chat to send to: a number, E.164 (`+447700900123`), or, in web mode, a group chat id
 * (`120363041234567890@g.us`).
 */
export type WhatsAppChat = string;

/** A text message, WhatsApp markup, at most 4,096 characters. */
export interface WhatsAppTextOut {
  readonly kind: 'text';
  readonly to: WhatsAppChat;
  readonly text: string;
  /** The message to quote (reply to), when useful. */
  readonly quoteId?: string;
}

/** A kept artifact sent as an image (JPEG, PNG) or a document (anything else). */
export interface WhatsAppMediaOut {
  readonly kind: 'media';
  readonly to: WhatsAppChat;
  readonly artifactId: string;
  /** The file name shown with a document. */
  readonly name: string;
  readonly caption?: string;
}

/** A reply-button message (Cloud API interactive `button`): at most 3 buttons, titles of at most 20 characters. */
export interface WhatsAppButtonsOut {
  readonly kind: 'buttons';
  readonly to: WhatsAppChat;
  /** At most 1,024 characters. */
  readonly body: string;
  /** Ids at most 256 characters; they come back in the button reply. */
  readonly buttons: readonly { readonly id: string; readonly title: string }[];
  readonly footer?: string;
}

/** An approved template (Cloud API), for a contact whose 24-hour window is closed. */
export interface WhatsAppTemplateOut {
  readonly kind: 'template';
  readonly to: WhatsAppChat;
  readonly name: string;
  readonly language: string;
  /** The body's `{{1}}`, `{{2}}`, … in order: no new lines, tabs or more than four spaces in a row, at most 1,024 characters each. */
  readonly bodyParams: readonly string[];
  /** The payload of each quick-reply button, by index (comes back as the button's `payload`). */
  readonly quickReplies?: readonly string[];
}

/** One message as a transport takes it. */
export type WhatsAppOut = WhatsAppTextOut | WhatsAppMediaOut | WhatsAppButtonsOut | WhatsAppTemplateOut;

/** How one transport sends. */
export interface WhatsAppTransport {
  /**
   * Whether the message of `idempotencyKey`, whose send began at `intent.since` and has no recorded
   * outcome, went out (see `ChannelSender.findSent`). Absent: the transport cannot tell.
   */
  readonly findSent?: (idempotencyKey: string, intent: SendIntent) => Promise<SentLookup>;
  readonly via: 'cloud' | 'web';
  /**
   * Sends one message; resolves with the provider's message id once it was accepted. Rejects with
   * a `DeliveryError` (`queues/delivery-error.ts`): rate limits and outages retryable, refusals
   * permanent. `idempotencyKey` is the outbound delivery's key: a transport that can, drops a
   * second send with the same key.
   */
  send(message: WhatsAppOut, idempotencyKey: string): Promise<{ readonly id: string }>;
}
