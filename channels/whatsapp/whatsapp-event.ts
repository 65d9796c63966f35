/**
 * The events both WhatsApp transports (the Cloud API webhook, a whatsapp-web.js session) hand to
 * the channel's intake: already verified, media already kept as artifacts, so normalising is a
 * pure function of the event.
 */
import type { StoredAttachment } from '../kit/kept-files.ts';

/** Which transport an event came through. */
export type WhatsAppVia = 'cloud' | 'web';

/** The group a message was written in (web mode). */
export interface WhatsAppGroup {
  /** The group's chat id, e.g. `120363041234567890@g.us`. */
  readonly id: string;
  readonly name?: string;
}

/** One message a person sent. */
export interface WhatsAppMessageEvent {
  readonly type: 'whatsapp';
  readonly via: WhatsAppVia;
  /** The message id: a Cloud API `wamid.…`, or whatsapp-web.js's serialised id. Unique per message; the same on redelivery. */
  readonly messageId: string;
  /** The sender's number, E.164 (`+447700900123`). */
  readonly from: string;
  /** The sender's WhatsApp profile name, when given. */
  readonly profileName?: string;
  /** Present when the message was written in a group. */
  readonly group?: WhatsAppGroup;
  /** What the person wrote (a caption for media, a button's title, a location as text). */
  readonly text: string;
  /** The id of the message this one replies to (WhatsApp's quote), when it is one. */
  readonly quotedId?: string;
  readonly attachments: readonly StoredAttachment[];
  /** Lines for the actor about what could not be kept (a medium too large, an unsupported type). */
  readonly notes: readonly string[];
  /** ISO 8601. */
  readonly receivedAt: string;
}

/** A tap on an approval button (Cloud API reply buttons or a template's quick replies). */
export interface WhatsAppApprovalEvent {
  readonly type: 'whatsapp-approval';
  readonly via: WhatsAppVia;
  /** The id of the button reply message (`wamid.…`). */
  readonly messageId: string;
  /** The sender's number, E.164. */
  readonly from: string;
  readonly profileName?: string;
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  /** The hash of the arguments the request showed, when the button id carried one. */
  readonly argsHash?: string;
  /** The id of the approval request message the button belonged to, when given. */
  readonly quotedId?: string;
  /** ISO 8601. */
  readonly receivedAt: string;
}

/** What a transport hands to the intake. */
export type WhatsAppEvent = WhatsAppMessageEvent | WhatsAppApprovalEvent;

/** What the intake does with an event (see `intake.ts`). */
export interface WhatsAppIntake {
  /**
   * Normalises and durably enqueues `event`, and notes the contact's last message (the Cloud API's
   * 24-hour window). Resolves `duplicate: true` for a redelivered message id. Rejects when Redis
   * cannot take it: the transport must not acknowledge the event (answer 503; leave it unread).
   */
  take(event: WhatsAppEvent): Promise<{ readonly duplicate: boolean }>;
}
