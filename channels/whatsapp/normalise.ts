/**
 * A {@link WhatsAppEvent} to an injection: `whatsapp:<message id>` (a redelivered webhook or a
 * message seen again after a reconnect is the same injection, dropped at enqueue), one
 * conversation per number (or per group, in web mode), the sender matched to a person by their
 * `whatsapp` number. WhatsApp verified the number when the account was registered, and the event
 * reached us signed by Meta (Cloud API) or through our own linked session (web); the basis says which.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import { actionContent, typedContent } from '../../src/runtime/content-trust.ts';
import type { Injection, Sender } from '../../src/runtime/injection.ts';
import { isAttachmentList, isIsoDateTime, isNonEmptyString, isOptionalString, isStringList, uncheckedFields, type UncheckedFields } from '../kit/event-checks.ts';
import { attachedLine } from '../kit/kept-files.ts';
import type { WhatsAppApprovalEvent, WhatsAppEvent, WhatsAppMessageEvent } from './whatsapp-event.ts';

/** What normalising needs besides the event. */
export interface WhatsAppNormaliseOptions {
  readonly people: readonly Person[];
  readonly tenantId: string;
}

const E164 = /^\+[1-9][0-9]{1,14}$/;

function isCommon(event: UncheckedFields): boolean {
  const { via, messageId, from } = event;
  return (
    (via === 'cloud' || via === 'web') &&
    isNonEmptyString(messageId) && messageId.length <= 256 &&
    typeof from === 'string' && E164.test(from) &&
    isOptionalString(event['profileName']) &&
    isOptionalString(event['quotedId']) &&
    isIsoDateTime(event['receivedAt'])
  );
}

/** Absent, or a group with a chat id and maybe a name. */
function isGroup(value: unknown): boolean {
  if (value === undefined) return true;
  const group = uncheckedFields(value);
  return group !== undefined && isNonEmptyString(group['id']) && isOptionalString(group['name']);
}

function isMessage(event: UncheckedFields): boolean {
  return event['type'] === 'whatsapp' && typeof event['text'] === 'string' && isGroup(event['group']) && isAttachmentList(event['attachments']) && isStringList(event['notes']);
}

function isApproval(event: UncheckedFields): boolean {
  const { decision, argsHash } = event;
  return (
    event['type'] === 'whatsapp-approval' &&
    isNonEmptyString(event['approvalId']) &&
    (decision === 'granted' || decision === 'denied') &&
    (argsHash === undefined || isNonEmptyString(argsHash))
  );
}

function checked(value: unknown): WhatsAppEvent {
  const event = uncheckedFields(value);
  if (event !== undefined && isCommon(event) && (isMessage(event) || isApproval(event))) return value as WhatsAppEvent;
  throw new SwitchboardError('channel.invalid', 'Not a WhatsApp event.', { details: { channel: 'whatsapp' } });
}

function senderOf(event: WhatsAppEvent, people: readonly Person[]): Sender {
  const person = people.find((candidate) => candidate.addresses.whatsapp.includes(event.from));
  const basis = event.via === 'cloud' ? `Meta-signed webhook; WhatsApp number ${event.from}` : `WhatsApp Web linked session; WhatsApp number ${event.from}`;
  const displayName = person?.name ?? event.profileName;
  return { id: event.from, verified: true, basis, ...(person === undefined ? {} : { personId: person.id }), ...(displayName === undefined ? {} : { displayName }) };
}

function textOf(event: WhatsAppMessageEvent): string {
  const lines = [event.text.trim(), ...event.attachments.map(attachedLine), ...event.notes].filter((line) => line !== '');
  return lines.length === 0 ? '(The message had no text.)' : lines.join('\n\n');
}

function approvalInjection(event: WhatsAppApprovalEvent, base: Omit<Injection, 'id' | 'kind' | 'conversationKey' | 'text' | 'replyTo'>): Injection {
  return {
    ...base,
    id: `whatsapp:${event.messageId}`,
    kind: 'approval-response',
    conversationKey: event.from,
    text: event.decision === 'granted' ? 'Approve' : 'Deny',
    content: actionContent(base.sender),
    data: { approvalId: event.approvalId, decision: event.decision, ...(event.argsHash === undefined ? {} : { argsHash: event.argsHash }) },
    replyTo: { channel: 'whatsapp', address: event.from, thread: { quoteId: event.messageId } },
  };
}

/**
 * Normalises one event. A message in a group is one conversation per group, answered in the group
 * quoting the message; a tap on an approval button is an `approval-response`. A message's content
 * is `typed`, a tap's `ui-action`.
 *
 * @throws SwitchboardError `channel.invalid` for anything that is not a {@link WhatsAppEvent}, every
 *   field checked (the group, each attachment and note, `receivedAt` an ISO 8601 date-time).
 */
export function normaliseWhatsAppEvent(value: unknown, options: WhatsAppNormaliseOptions): Injection {
  const event = checked(value);
  const base = { channel: 'whatsapp', tenantId: options.tenantId, sender: senderOf(event, options.people), receivedAt: event.receivedAt };
  if (event.type === 'whatsapp-approval') return approvalInjection(event, base);
  const chat = event.group?.id ?? event.from;
  return {
    ...base,
    id: `whatsapp:${event.messageId}`,
    kind: 'message',
    conversationKey: event.group === undefined ? event.from : `group:${event.group.id}`,
    text: textOf(event),
    content: typedContent(base.sender),
    replyTo: { channel: 'whatsapp', address: chat, thread: { quoteId: event.messageId } },
  };
}
