/**
 * An {@link SmsEvent} to an injection: `sms:<idempotency token or MessageSid>` (a redelivered
 * webhook is the same injection and is dropped at enqueue), one conversation per phone number,
 * the sender matched to a person by their `sms` (or, for `whatsapp:` senders, `whatsapp`) number.
 * A Twilio-signed webhook vouches for the number it reports; caller ID is all SMS has, and the
 * basis says so in every audit line.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import { typedContent } from '../../src/runtime/content-trust.ts';
import type { Injection, Sender } from '../../src/runtime/injection.ts';
import { isAttachmentList, isIsoDateTime, isNonEmptyString, isStringList, uncheckedFields } from '../kit/event-checks.ts';
import { attachedLine } from '../kit/kept-files.ts';
import type { SmsEvent } from './sms-event.ts';
import { isSmsAddress } from './sms-payload.ts';

/** What normalising needs besides the event. */
export interface SmsNormaliseOptions {
  readonly people: readonly Person[];
  readonly tenantId: string;
}

function isSmsEvent(value: unknown): value is SmsEvent {
  const event = uncheckedFields(value);
  if (event === undefined) return false;
  const { messageSid, from, idempotencyToken } = event;
  return (
    event['type'] === 'sms' &&
    typeof messageSid === 'string' && /^[A-Z]{2}[0-9a-f]{32}$/.test(messageSid) &&
    typeof from === 'string' && isSmsAddress(from) &&
    (idempotencyToken === undefined || isNonEmptyString(idempotencyToken)) &&
    typeof event['to'] === 'string' && typeof event['body'] === 'string' && isIsoDateTime(event['receivedAt']) &&
    isAttachmentList(event['attachments']) && isStringList(event['notes'])
  );
}

/** The person whose number sent the message. */
function personOf(from: string, people: readonly Person[]): Person | undefined {
  const whatsapp = from.startsWith('whatsapp:');
  const number = whatsapp ? from.slice('whatsapp:'.length) : from;
  return people.find((person) => (whatsapp ? person.addresses.whatsapp : person.addresses.sms).includes(number));
}

function textOf(event: SmsEvent): string {
  const listed = event.attachments.map(attachedLine);
  const lines = [event.body.trim(), ...listed, ...event.notes].filter((line) => line !== '');
  return lines.length === 0 ? '(The message had no text.)' : lines.join('\n\n');
}

/**
 * Normalises one inbound message, its content `typed` (trusted: the sender's own words, as far as
 * caller ID tells who they are).
 *
 * @throws SwitchboardError `channel.invalid` for anything that is not an {@link SmsEvent}, every
 *   field checked (each attachment and note, `receivedAt` an ISO 8601 date-time).
 */
export function normaliseSmsEvent(event: unknown, options: SmsNormaliseOptions): Injection {
  if (!isSmsEvent(event)) throw new SwitchboardError('channel.invalid', 'Not an SMS event.', { details: { channel: 'sms' } });
  const person = personOf(event.from, options.people);
  const sender: Sender = {
    id: event.from,
    verified: true,
    basis: `Twilio-signed webhook; caller ID ${event.from}`,
    ...(person === undefined ? {} : { personId: person.id, displayName: person.name }),
  };
  return {
    id: `sms:${event.idempotencyToken ?? event.messageSid}`,
    kind: 'message',
    channel: 'sms',
    tenantId: options.tenantId,
    conversationKey: event.from,
    sender,
    text: textOf(event),
    content: typedContent(sender),
    replyTo: { channel: 'sms', address: event.from },
    receivedAt: event.receivedAt,
  };
}
