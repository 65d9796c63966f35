/**
 * An {@link EmailEvent} to an injection: `email:<uidValidity>-<uid>` (a mail read twice is the same
 * injection and is dropped at enqueue), the conversation of its sender and thread, the sender as
 * authenticated, and replies threaded under the mail. A reply to an approval request becomes an
 * `approval-response`, which never reaches an actor.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import { mailBodyContent } from '../../src/runtime/content-trust.ts';
import type { Destination, Injection, Sender } from '../../src/runtime/injection.ts';
import { isAttachmentList, isIsoDateTime, isNonEmptyString, isOptionalString, uncheckedFields } from '../kit/event-checks.ts';
import type { ApprovalReplyFacts, EmailEvent } from './email-event.ts';

/** What normalising needs besides the event. */
export interface EmailNormaliseOptions {
  readonly people: readonly Person[];
  readonly tenantId: string;
  /** The bot's own address, lower-case: its own mail starts nothing. */
  readonly botAddress: string;
}

/** Whether `value` is one of the two shapes of {@link ApprovalReplyFacts}, and nothing in between. */
function isApprovalFacts(value: unknown): value is ApprovalReplyFacts {
  const facts = uncheckedFields(value);
  if (facts === undefined) return false;
  const { approvalId, decision, answer } = facts;
  if ('answer' in facts) return typeof answer === 'string' && !('decision' in facts) && (approvalId === undefined || isNonEmptyString(approvalId));
  return isNonEmptyString(approvalId) && (decision === 'granted' || decision === 'denied');
}

function isEmailEvent(value: unknown): value is EmailEvent {
  const event = uncheckedFields(value);
  if (event === undefined) return false;
  const { from, approval } = event;
  return (
    event['type'] === 'email' &&
    Number.isSafeInteger(event['uidValidity']) &&
    Number.isSafeInteger(event['uid']) &&
    [event['messageId'], from, event['conversationKey'], event['basis']].every(isNonEmptyString) &&
    typeof from === 'string' &&
    from.includes('@') &&
    isOptionalString(event['fromName']) &&
    typeof event['text'] === 'string' &&
    typeof event['subject'] === 'string' &&
    typeof event['references'] === 'string' &&
    typeof event['verified'] === 'boolean' &&
    isAttachmentList(event['attachments']) &&
    (approval === undefined || isApprovalFacts(approval)) &&
    isIsoDateTime(event['receivedAt'])
  );
}

function replyTo(event: EmailEvent): Destination {
  return {
    channel: 'email',
    address: event.from,
    thread: { messageId: event.messageId, references: event.references, subject: event.subject, conversation: event.conversationKey },
  };
}

/** The injection's data of an approval reply: only the fields of its shape. */
function approvalData(approval: ApprovalReplyFacts | undefined): Readonly<Record<string, unknown>> | undefined {
  if (approval === undefined) return undefined;
  if ('answer' in approval) return { answer: approval.answer, ...(approval.approvalId === undefined ? {} : { approvalId: approval.approvalId }) };
  return { approvalId: approval.approvalId, decision: approval.decision };
}

/**
 * Normalises one mail; `undefined` for the bot's own mail. Its content is `email-body`, trusted
 * only when the sender is verified (DKIM/DMARC) and a known person (see `content-trust.ts`).
 *
 * @throws SwitchboardError `channel.invalid` for anything that is not an {@link EmailEvent}, every
 *   field checked (an approval reply is one of its two shapes, `receivedAt` an ISO 8601 date-time).
 */
export function normaliseEmailEvent(event: unknown, options: EmailNormaliseOptions): Injection | undefined {
  if (!isEmailEvent(event)) throw new SwitchboardError('channel.invalid', 'Not an email event.', { details: { channel: 'email' } });
  if (event.from === options.botAddress) return undefined;
  const person = options.people.find((candidate) => candidate.addresses.email.includes(event.from));
  const displayName = person?.name ?? event.fromName;
  const data = approvalData(event.approval);
  const sender: Sender = {
    id: event.from,
    verified: event.verified,
    basis: event.basis,
    ...(person === undefined ? {} : { personId: person.id }),
    ...(displayName === undefined ? {} : { displayName }),
  };
  return {
    id: `email:${event.uidValidity}-${event.uid}`,
    kind: data === undefined ? 'message' : 'approval-response',
    channel: 'email',
    tenantId: options.tenantId,
    conversationKey: event.conversationKey,
    sender,
    text: event.text,
    content: mailBodyContent(sender),
    ...(data === undefined ? {} : { data }),
    replyTo: replyTo(event),
    receivedAt: event.receivedAt,
  };
}
