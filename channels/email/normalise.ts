/**
 * An {@link EmailEvent} to an injection: `email:<uidValidity>-<uid>` (a mail read twice is the same
 * injection and is dropped at enqueue), the conversation of its sender and thread, the sender as
 * authenticated, and replies threaded under the mail. A reply to an approval request becomes an
 * `approval-response`, which never reaches an actor.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import type { Destination, Injection } from '../../src/runtime/injection.ts';
import type { EmailEvent } from './email-event.ts';

/** What normalising needs besides the event. */
export interface EmailNormaliseOptions {
  readonly people: readonly Person[];
  readonly tenantId: string;
  /** The bot's own address, lower-case: its own mail starts nothing. */
  readonly botAddress: string;
}

function isEmailEvent(value: unknown): value is EmailEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Partial<Record<keyof EmailEvent, unknown>>;
  const strings = [event.messageId, event.from, event.conversationKey, event.receivedAt, event.basis];
  return (
    event.type === 'email' &&
    Number.isSafeInteger(event.uidValidity) &&
    Number.isSafeInteger(event.uid) &&
    strings.every((field) => typeof field === 'string' && field !== '') &&
    typeof event.text === 'string' &&
    typeof event.subject === 'string' &&
    typeof event.references === 'string' &&
    typeof event.verified === 'boolean' &&
    Array.isArray(event.attachments) &&
    (event.from as string).includes('@')
  );
}

function replyTo(event: EmailEvent): Destination {
  return {
    channel: 'email',
    address: event.from,
    thread: { messageId: event.messageId, references: event.references, subject: event.subject, conversation: event.conversationKey },
  };
}

function approvalData(event: EmailEvent): Readonly<Record<string, unknown>> | undefined {
  const { approval } = event;
  if (approval === undefined) return undefined;
  return 'answer' in approval ? { answer: approval.answer, ...(approval.approvalId === undefined ? {} : { approvalId: approval.approvalId }) } : { ...approval };
}

/**
 * Normalises one mail; `undefined` for the bot's own mail.
 *
 * @throws SwitchboardError `channel.invalid` for anything that is not an {@link EmailEvent}.
 */
export function normaliseEmailEvent(event: unknown, options: EmailNormaliseOptions): Injection | undefined {
  if (!isEmailEvent(event)) throw new SwitchboardError('channel.invalid', 'Not an email event.', { details: { channel: 'email' } });
  if (event.from === options.botAddress) return undefined;
  const person = options.people.find((candidate) => candidate.addresses.email.includes(event.from));
  const displayName = person?.name ?? event.fromName;
  const data = approvalData(event);
  return {
    id: `email:${event.uidValidity}-${event.uid}`,
    kind: data === undefined ? 'message' : 'approval-response',
    channel: 'email',
    tenantId: options.tenantId,
    conversationKey: event.conversationKey,
    sender: {
      id: event.from,
      verified: event.verified,
      basis: event.basis,
      ...(person === undefined ? {} : { personId: person.id }),
      ...(displayName === undefined ? {} : { displayName }),
    },
    text: event.text,
    ...(data === undefined ? {} : { data }),
    replyTo: replyTo(event),
    receivedAt: event.receivedAt,
  };
}
