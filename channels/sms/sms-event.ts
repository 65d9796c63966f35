/**
 * The event the SMS webhook hands to `normalise`: one verified inbound message with its media
 * already kept as artifacts, so normalising is a pure function of this object.
 */
import type { StoredAttachment } from '../kit/kept-files.ts';

/** One inbound SMS, MMS or Twilio WhatsApp message. */
export interface SmsEvent {
  readonly type: 'sms';
  /** `MessageSid` (`SM…`, `MM…`). */
  readonly messageSid: string;
  /** `I-Twilio-Idempotency-Token`, the same on every retry of the webhook, when Twilio sent it. */
  readonly idempotencyToken?: string;
  /** The sender: `+E.164`, or `whatsapp:+E.164`. */
  readonly from: string;
  /** Our number the message was sent to. */
  readonly to: string;
  readonly body: string;
  readonly attachments: readonly StoredAttachment[];
  /** Lines about media that could not be kept. */
  readonly notes: readonly string[];
  /** ISO 8601. */
  readonly receivedAt: string;
}
