/**
 * A {@link WhatsAppEvent} to an injection: `whatsapp:<message id>` (a redelivered webhook or a
 * message seen again after a reconnect is the same injection, dropped at enqueue), one
 * conversation per number (or per group, in web mode), the sender matched to a person by their
 * `whatsapp` number. WhatsApp verified the number when the account was registered, and the event
 * reached us signed by Meta (Cloud API) or through our own linked session (web); the basis says which.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import type { Injection, Sender } from '../../src/runtime/injection.ts';
import { attachedLine } from '../kit/kept-files.ts';
import type { WhatsAppApprovalEvent, WhatsAppEvent, WhatsAppMessageEvent } from './whatsapp-event.ts';

/** What normalising needs besides the event. */
export interface WhatsAppNormaliseOptions {
  readonly people: readonly Person[];
  readonly tenantId: string;
}

const E164 = /^\+[1-9][0-9]{1,14}$/;

function isCommon(event: Partial<Record<string, unknown>>): boolean {
  return (
    (event['via'] === 'cloud' || event['via'] === 'web') &&
    typeof event['messageId'] === 'string' && event['messageId'] !== '' && event['messageId'].length <= 256 &&
    typeof event['from'] === 'string' && E164.test(event['from']) &&
    typeof event['receivedAt'] === 'string'
  );
}

function isMessage(event: Partial<Record<string, unknown>>): boolean {
  return event['type'] === 'whatsapp' && typeof event['text'] === 'string' && Array.isArray(event['attachments']) && Array.isArray(event['notes']);
}

function isApproval(event: Partial<Record<string, unknown>>): boolean {
  return event['type'] === 'whatsapp-approval' && typeof event['approvalId'] === 'string' && (event['decision'] === 'granted' || event['decision'] === 'denied');
}

function checked(value: unknown): WhatsAppEvent {
  if (typeof value === 'object' && value !== null) {
    const event = value as Partial<Record<string, unknown>>;
    if (isCommon(event) && (isMessage(event) || isApproval(event))) return value as WhatsAppEvent;
  }
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
    data: { approvalId: event.approvalId, decision: event.decision, ...(event.argsHash === undefined ? {} : { argsHash: event.argsHash }) },
    replyTo: { channel: 'whatsapp', address: event.from, thread: { quoteId: event.messageId } },
  };
}

/**
 * Normalises one event. A message in a group is one conversation per group, answered in the group
 * quoting the message; a tap on an approval button is an `approval-response`.
 *
 * @throws SwitchboardError `channel.invalid` for anything that is not a {@link WhatsAppEvent}.
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
    replyTo: { channel: 'whatsapp', address: chat, thread: { quoteId: event.messageId } },
  };
}
