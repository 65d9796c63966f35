/**
 * Slack events to injections. A conversation is team + channel + thread (the thread's `ts`, or the
 * message's own when it starts one), so each thread is its own session; the sender is `TEAM:USER`,
 * verified by Slack's request signature (or by the app token of the Socket Mode connection it came
 * on), matched to people by their `slack: [T123:U456]` addresses. A click on an approval card becomes an `approval-response`; its answer goes to the
 * clicking user only (ephemeral).
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import { actionContent, typedContent } from '../../src/runtime/content-trust.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { isIsoDateTime, isNonEmptyString, isStringList, uncheckedFields, type UncheckedFields } from '../kit/event-checks.ts';
import type { SlackEvent } from './slack-event.ts';

/** What normalising needs besides the event. */
export interface SlackNormaliseOptions {
  readonly people: readonly Person[];
  readonly tenantId: string;
}

const ID = /^[A-Z0-9]{2,}$/;
const TS = /^\d+\.\d+$/;

const isId = (value: unknown): boolean => typeof value === 'string' && ID.test(value);
const isTs = (value: unknown): value is string => typeof value === 'string' && TS.test(value);

/** The fields both kinds share: the ids, an optional thread, `via` and `receivedAt`. */
function isCommon(value: UncheckedFields): boolean {
  const { threadTs, via } = value;
  return (
    [value['teamId'], value['channel'], value['user']].every(isId) &&
    (threadTs === undefined || isTs(threadTs)) &&
    (via === undefined || via === 'socket') &&
    isIsoDateTime(value['receivedAt'])
  );
}

function isMessage(value: UncheckedFields): boolean {
  return value['type'] === 'slack-message' && isNonEmptyString(value['eventId']) && typeof value['text'] === 'string' && isTs(value['ts']) && isStringList(value['notes']);
}

function isClick(value: UncheckedFields): boolean {
  const { decision, argsHash } = value;
  return (
    value['type'] === 'slack-approval' &&
    isNonEmptyString(value['actionTs']) &&
    isTs(value['messageTs']) &&
    isNonEmptyString(value['approvalId']) &&
    (decision === 'granted' || decision === 'denied') &&
    (argsHash === undefined || isNonEmptyString(argsHash))
  );
}

function checked(event: unknown): SlackEvent {
  const value = uncheckedFields(event);
  if (value !== undefined && isCommon(value) && (isMessage(value) || isClick(value))) return event as SlackEvent;
  throw new SwitchboardError('channel.invalid', 'Not a Slack event.', { details: { channel: 'slack' } });
}

function sender(event: SlackEvent, people: readonly Person[]): Injection['sender'] {
  const address = `${event.teamId}:${event.user}`;
  const person = people.find((candidate) => candidate.addresses.slack.includes(address));
  const basis = event.via === 'socket' ? 'Slack Socket Mode (app token)' : 'Slack-signed request';
  return { id: address, verified: true, basis, ...(person === undefined ? {} : { personId: person.id, displayName: person.name }) };
}

/**
 * Normalises one event: a message's content is `typed`, a click's `ui-action` (trusted: Slack
 * verified the user).
 *
 * @throws SwitchboardError `channel.invalid` for anything that is not a {@link SlackEvent}, every
 *   field checked (ids, `ts` values, notes, `receivedAt` an ISO 8601 date-time).
 */
export function normaliseSlackEvent(event: unknown, options: SlackNormaliseOptions): Injection {
  const slack = checked(event);
  const base = { channel: 'slack', tenantId: options.tenantId, sender: sender(slack, options.people), receivedAt: slack.receivedAt };
  if (slack.type === 'slack-approval') {
    const threadTs = slack.threadTs ?? slack.messageTs;
    return {
      ...base,
      content: actionContent(base.sender),
      id: `slack:action:${slack.teamId}:${slack.actionTs}:${slack.user}`,
      kind: 'approval-response',
      conversationKey: `${slack.teamId}:${slack.channel}:${threadTs}`,
      text: slack.decision === 'granted' ? 'Approve' : 'Deny',
      data: { approvalId: slack.approvalId, decision: slack.decision, ...(slack.argsHash === undefined ? {} : { argsHash: slack.argsHash }) },
      replyTo: { channel: 'slack', address: slack.channel, thread: { teamId: slack.teamId, threadTs, ephemeralUser: slack.user } },
    };
  }
  const threadTs = slack.threadTs ?? slack.ts;
  const text = [slack.text.trim(), ...slack.notes].filter((line) => line !== '').join('\n\n');
  return {
    ...base,
    id: `slack:${slack.teamId}:${slack.eventId}`,
    kind: 'message',
    conversationKey: `${slack.teamId}:${slack.channel}:${threadTs}`,
    text: text === '' ? '(The message had no text.)' : text,
    content: typedContent(base.sender),
    replyTo: { channel: 'slack', address: slack.channel, thread: { teamId: slack.teamId, threadTs } },
  };
}
