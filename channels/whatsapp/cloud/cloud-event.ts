/**
 * A read Cloud API message (`inbound-message.ts`) as the channel's {@link WhatsAppEvent}: the
 * sender as E.164, their profile name from the change's contacts, Meta's timestamp as the time it
 * was received, the quoted message from `context.id`.
 */
import type { StoredAttachment } from '../../kit/kept-files.ts';
import type { WhatsAppEvent } from '../whatsapp-event.ts';
import type { InboundReading } from './inbound-message.ts';
import type { CloudContact, CloudMessage } from './webhook-payload.ts';

/** What the message carried besides its reading. */
export interface CloudEventInput {
  readonly message: CloudMessage;
  /** A reading that starts a turn (not `ignore`). */
  readonly reading: Exclude<InboundReading, { readonly kind: 'ignore' }>;
  /** The change's `contacts`, for the sender's profile name. */
  readonly contacts: readonly CloudContact[];
  /** The kept medium and notes about what was not kept. */
  readonly media: { readonly stored: readonly StoredAttachment[]; readonly notes: readonly string[] };
  /** The time to use when the message has no readable timestamp. */
  readonly now: Date;
}

/** Meta's Unix-seconds timestamp as ISO 8601, or `now` when it is missing or unreadable. */
export function receivedAt(timestamp: string | undefined, now: Date): string {
  const seconds = Number(timestamp);
  return timestamp !== undefined && /^\d{1,12}$/.test(timestamp) && Number.isSafeInteger(seconds) ? new Date(seconds * 1000).toISOString() : now.toISOString();
}

/**
 * The event of one message.
 *
 * @example
 * cloudEvent({ message, reading, contacts, media: { stored: [], notes: [] }, now: clock() })
 * // { type: 'whatsapp', via: 'cloud', messageId: 'wamid.…', from: '+16505551234', text: '…', … }
 */
export function cloudEvent(input: CloudEventInput): WhatsAppEvent {
  const { message, reading } = input;
  const profileName = input.contacts.find((contact) => contact.waId === message.from)?.name;
  const common = {
    via: 'cloud' as const,
    messageId: message.id,
    from: `+${message.from}`,
    receivedAt: receivedAt(message.timestamp, input.now),
    ...(profileName === undefined ? {} : { profileName }),
    ...(message.contextId === undefined ? {} : { quotedId: message.contextId }),
  };
  if (reading.kind === 'approval') {
    const { approvalId, decision, argsHash } = reading.button;
    return { type: 'whatsapp-approval', ...common, approvalId, decision, ...(argsHash === undefined ? {} : { argsHash }) };
  }
  return { type: 'whatsapp', ...common, text: reading.text, attachments: [...input.media.stored], notes: [...reading.notes, ...input.media.notes] };
}
